package controlplane

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// The control planes a test binary's tests share: started by the first test that
// asks, stopped by RunTests after the tests.
var (
	sharedOpts   Options
	shared       sharedPlane // Shared's
	sharedOldest sharedPlane // SharedOldest's
)

// sharedPlane is one shared control plane, started once.
type sharedPlane struct {
	once sync.Once
	cp   *ControlPlane
	err  error
}

// get returns the control plane, starting it with start on first use; what names
// it in the log and in the failure.
func (s *sharedPlane) get(t testing.TB, what string, start func(context.Context) (*ControlPlane, error)) *ControlPlane {
	t.Helper()
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 2*time.Minute)
		defer cancel()
		began := time.Now()
		s.cp, s.err = start(ctx)
		if s.err == nil {
			_, version := s.cp.Version()
			t.Logf("%s started in %v: kube-apiserver %s", what, time.Since(began).Round(time.Millisecond), version)
		}
	})
	if s.err != nil {
		t.Fatalf("start the %s: %v", what, s.err)
	}
	return s.cp
}

// stop stops the control plane if it was started.
func (s *sharedPlane) stop(what string) error {
	if s.cp == nil {
		return nil
	}
	if err := s.cp.Stop(); err != nil {
		return fmt.Errorf("stop the %s: %w", what, err)
	}
	return nil
}

// Shared returns the test binary's shared control plane, starting it on first use
// with the options given to RunTestsWith (none with RunTests).
func Shared(t testing.TB) *ControlPlane {
	t.Helper()
	what := fmt.Sprintf("shared control plane (every controller: %t)", sharedOpts.AllControllers)
	return shared.get(t, what, func(ctx context.Context) (*ControlPlane, error) { return Start(ctx, sharedOpts) })
}

// SharedOldest returns the test binary's shared control plane of the oldest minor
// (see StartOldest: etcd and the API server EnvKubeAPIServerOldest names, no
// controller manager), starting it on first use with the Output, DurableEtcd and
// APIServerArgs given to RunTestsWith. A package whose tests run over the newest and the oldest
// API server takes Shared and SharedOldest.
func SharedOldest(t testing.TB) *ControlPlane {
	t.Helper()
	opts := Options{Output: sharedOpts.Output, DurableEtcd: sharedOpts.DurableEtcd, APIServerArgs: sharedOpts.APIServerArgs}
	return sharedOldest.get(t, "shared control plane of the oldest minor", func(ctx context.Context) (*ControlPlane, error) {
		return StartOldest(ctx, opts)
	})
}

// RunTests runs a package's tests and then stops the shared control planes they
// started; use it as TestMain's `os.Exit(controlplane.RunTests(m))`. A failure to
// stop fails the run.
func RunTests(m *testing.M) int { return RunTestsWith(m, Options{}) }

// RunTestsWith is RunTests with the options the shared control plane starts with,
// e.g. Options{AllControllers: true} for a package whose tests need the
// controllers of a real cluster.
func RunTestsWith(m *testing.M, opts Options) int {
	sharedOpts = opts
	code := m.Run()
	for _, s := range []struct {
		plane *sharedPlane
		what  string
	}{{&shared, "shared control plane"}, {&sharedOldest, "shared control plane of the oldest minor"}} {
		if err := s.plane.stop(s.what); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = max(code, 1)
		}
	}
	return code
}
