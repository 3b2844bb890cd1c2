package differential_test

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/endpoints-provider/pulumi-endpoints/tests/controlplane"
)

// shared is the control plane that this package's tests share; it starts on first
// use and stops in TestMain.
var shared struct {
	once sync.Once
	cp   *controlplane.ControlPlane
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.cp != nil {
		if err := shared.cp.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stop the shared control plane: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// controlPlane returns the shared control plane, starting it if needed.
func controlPlane(t *testing.T) *controlplane.ControlPlane {
	t.Helper()
	shared.once.Do(func() {
		began := time.Now()
		// t.Context bounds only the start-up.
		shared.cp, shared.err = controlplane.Start(t.Context(), controlplane.Options{})
		t.Logf("shared control plane started in %v", time.Since(began).Round(time.Millisecond))
	})
	if shared.err != nil {
		t.Fatalf("start the shared control plane: %v", shared.err)
	}
	return shared.cp
}
