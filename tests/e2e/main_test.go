package e2e

import (
	"fmt"
	"os"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/controlplane"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := controlplane.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}
