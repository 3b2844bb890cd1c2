package lazy

import (
	"errors"
	"sync"
	"testing"
)

// A value is built once per key, built again for a new key (the old one retired), and
// a failed build is not kept.
func TestValue(t *testing.T) {
	t.Parallel()
	var (
		v       Value[string, int]
		builds  int
		retired []int
		fail    = true
	)
	build := func() (int, error) {
		builds++
		if fail {
			return 0, errors.New("not yet")
		}
		return builds, nil
	}
	retire := func(n int) { retired = append(retired, n) }
	if _, err := v.Get("a", build, retire); err == nil {
		t.Fatal("a failed build answered no error")
	}
	fail = false
	if n, err := v.Get("a", build, retire); err != nil || n != 2 {
		t.Fatalf("after a failed build: %d, %v; want a second build, 2", n, err)
	}
	if n, _ := v.Get("a", build, retire); n != 2 || builds != 2 {
		t.Errorf("the same key: value %d after %d builds; want the value built, 2, and no build", n, builds)
	}
	if n, _ := v.Get("b", build, retire); n != 3 || len(retired) != 1 || retired[0] != 2 {
		t.Errorf("a new key: value %d, retired %v; want 3 and [2]", n, retired)
	}
}

// Concurrent first calls build once.
func TestValueBuildsOnceForConcurrentCalls(t *testing.T) {
	t.Parallel()
	var (
		v      Value[int, int]
		mu     sync.Mutex
		builds int
		wg     sync.WaitGroup
	)
	for range 8 {
		wg.Go(func() {
			_, _ = v.Get(1, func() (int, error) {
				mu.Lock()
				defer mu.Unlock()
				builds++
				return builds, nil
			}, nil)
		})
	}
	wg.Wait()
	if builds != 1 {
		t.Errorf("%d builds, want 1", builds)
	}
}
