package examples

import (
	"os"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

func TestMain(m *testing.M) {
	os.Exit(controlplane.RunTestsWith(m, controlplane.Options{AllControllers: true}))
}
