package docs_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
)

// TestMain stops the control plane the YAML examples' previews share, and removes
// the plugin copy their CLI runs found on PATH.
func TestMain(m *testing.M) {
	code := controlplane.RunTests(m)
	if err := plugin.RemoveAmbientDir(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}
