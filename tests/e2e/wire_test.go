package e2e

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	rpcplugin "github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
)

// A partial state crosses the real gRPC boundary as the engine expects it: an error
// carrying ErrorResourceInitFailed with the ID and properties, so the engine records
// the object (and the plugin does not crash on the way).
func TestPartialStateCrossesTheWire(t *testing.T) {
	t.Parallel()
	p := plugin.Start(t, plugin.Path(t))
	ctx := plugin.Context(t)
	unreachable := "apiVersion: v1\nkind: Config\n" +
		"clusters: [{name: c, cluster: {server: \"https://127.0.0.1:1\", insecure-skip-tls-verify: true}}]\n" +
		"users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n"
	marshal := func(m map[string]any) *structpb.Struct {
		s, err := rpcplugin.MarshalProperties(resource.NewPropertyMapFromMap(m), rpcplugin.MarshalOptions{KeepSecrets: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, err := p.Configure(ctx, &rpc.ConfigureRequest{Args: marshal(map[string]any{"kubeconfig": unreachable}),
		AcceptSecrets: true}); err != nil {
		t.Fatal(err)
	}
	_, err := p.Create(ctx, &rpc.CreateRequest{
		Urn: string(resource.NewURN("s", "p", "", spec.EndpointSliceToken, "w")),
		Properties: marshal(map[string]any{
			"metadata":    map[string]any{"name": "w", "namespace": "default"},
			"addressType": "IPv4",
			"endpoints":   []any{map[string]any{"addresses": []any{"10.0.0.1"}}},
		}),
	})
	if err == nil {
		t.Fatal("Create against an unreachable cluster succeeded")
	}
	var initFailed *rpc.ErrorResourceInitFailed
	for _, d := range status.Convert(err).Details() {
		if f, ok := d.(*rpc.ErrorResourceInitFailed); ok {
			initFailed = f
		}
	}
	if initFailed == nil {
		t.Fatalf("the error carries no ErrorResourceInitFailed: %v", err)
	}
	if initFailed.GetId() != "default/w" || !strings.Contains(strings.Join(initFailed.GetReasons(), " "), "may or may not exist") {
		t.Errorf("init failure = id %q, reasons %q", initFailed.GetId(), initFailed.GetReasons())
	}
	// The plugin is still serving.
	if _, err := p.GetSchema(ctx, &rpc.GetSchemaRequest{}); err != nil {
		t.Errorf("the plugin stopped serving after the partial create: %v", err)
	}
}
