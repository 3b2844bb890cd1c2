// Package inprocess runs the provider inside the test binary: the gRPC server the
// plugin serves (provider.New, what protocolServer adds included), called through
// pulumi-go-provider's integration server with every request marshalled as the
// engine's would be (see Provider), and records what it logs.
//
// Behind the integration server there is no engine to send the provider's log to:
// what it logs through pulumi-go-provider's engine logger (p.GetLogger) goes to
// slog's default logger, with the resource's URN as the "urn" attribute. A Log set
// as that logger in TestMain keeps it for the tests to read:
//
//	var logs = &inprocess.Log{}
//
//	func TestMain(m *testing.M) {
//		slog.SetDefault(slog.New(logs))
//		os.Exit(m.Run())
//	}
package inprocess
