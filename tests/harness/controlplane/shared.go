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
	opts Options
	once sync.Once
	cp   *ControlPlane
	err  error
}

// Shared returns the test binary's shared control plane, starting it on first use
// with the options given to RunTestsWith (none with RunTests).
func Shared(t testing.TB) *ControlPlane {
	t.Helper()
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 2*time.Minute)
		defer cancel()
		began := time.Now()
		shared.cp, shared.err = Start(ctx, shared.opts)
		if shared.err == nil {
			t.Logf("shared control plane (every controller: %t) started in %v",
				shared.opts.AllControllers, time.Since(began).Round(time.Millisecond))
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
func RunTests(m *testing.M) int { return RunTestsWith(m, Options{}) }

// RunTestsWith is RunTests with the options the shared control plane starts with,
// e.g. Options{AllControllers: true} for a package whose tests need the
// controllers of a real cluster.
func RunTestsWith(m *testing.M, opts Options) int {
	shared.opts = opts
	code := m.Run()
	if shared.cp != nil {
		if err := shared.cp.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stop the shared control plane: %v\n", err)
			code = max(code, 1)
		}
	}
	return code
}
