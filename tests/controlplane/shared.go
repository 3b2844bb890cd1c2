package controlplane

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// One control plane per test binary, for packages whose tests share it: started by
// the first test that asks, stopped by RunTests after the tests.
var shared struct {
	once sync.Once
	cp   *ControlPlane
	err  error
}

// Shared returns the test binary's shared control plane, starting it on first use.
func Shared(t testing.TB) *ControlPlane {
	t.Helper()
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 2*time.Minute)
		defer cancel()
		began := time.Now()
		shared.cp, shared.err = Start(ctx, Options{})
		if shared.err == nil {
			t.Logf("shared control plane started in %v", time.Since(began).Round(time.Millisecond))
		}
	})
	if shared.err != nil {
		t.Fatalf("start the shared control plane: %v", shared.err)
	}
	return shared.cp
}

// RunTests runs a package's tests and then stops the shared control plane, if they
// started one; use it as TestMain's `os.Exit(controlplane.RunTests(m))`. A failure
// to stop fails the run.
func RunTests(m *testing.M) int {
	code := m.Run()
	if shared.cp != nil {
		if err := shared.cp.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stop the shared control plane: %v\n", err)
			code = max(code, 1)
		}
	}
	return code
}
