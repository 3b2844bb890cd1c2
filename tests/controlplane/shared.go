package controlplane

import (
	"context"
	"sync"
	"testing"
	"time"
)

// One control plane per test binary, for packages whose tests share it: started by
// the first test that asks, stopped by StopShared in TestMain.
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
		shared.cp, shared.err = Start(ctx, Options{})
	})
	if shared.err != nil {
		t.Fatalf("start the shared control plane: %v", shared.err)
	}
	return shared.cp
}

// StopShared stops the shared control plane if one was started; call it from TestMain
// after m.Run.
func StopShared() error {
	if shared.cp == nil {
		return nil
	}
	return shared.cp.Stop()
}
