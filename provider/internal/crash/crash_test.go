package crash

import (
	"strings"
	"testing"
)

func TestCatch(t *testing.T) {
	t.Parallel()
	if p := Catch(func() {}); p != nil {
		t.Errorf("Catch of a call that returns = %v, want nil", p)
	}
	p := Catch(func() { panic("boom") })
	if p == nil || p.Value != "boom" || !strings.Contains(string(p.Stack), "crash.TestCatch") {
		t.Fatalf("Catch = %+v, want the value and a stack through the test", p)
	}
	// A panic carried from another goroutine keeps the stack it began with.
	again := Catch(func() { panic(p) })
	if again != p {
		t.Errorf("Catch of a carried panic = %+v, want the carried one %+v", again, p)
	}
}
