package differential_test

import (
	"os"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/controlplane"
)

func TestMain(m *testing.M) { os.Exit(controlplane.RunTests(m)) }

func controlPlane(t *testing.T) *controlplane.ControlPlane { return controlplane.Shared(t) }
