package dataplane

import (
	"os"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/dataplane"
)

func TestMain(m *testing.M) {
	os.Exit(dataplane.RunTests(m))
}
