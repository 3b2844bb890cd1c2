package e2e

import (
	"fmt"
	"os"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
)

func TestMain(m *testing.M) {
	code := controlplane.RunTestsWith(m, controlplane.Options{AllControllers: true})
	if err := plugin.RemoveAmbientDir(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}
