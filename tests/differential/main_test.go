package differential_test

import (
	"log/slog"
	"os"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

func TestMain(m *testing.M) {
	// The provider runs in process, with no engine to send its log to: what it logs
	// through the engine logger lands in slog's default logger, which keeps the
	// warnings of each resource (see logs).
	slog.SetDefault(slog.New(logs))
	os.Exit(controlplane.RunTests(m))
}
