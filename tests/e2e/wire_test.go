package e2e

import (
	"io"
	"net"
	"strings"
	"sync"
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
	// A server that takes each request and never answers it: the create is sent, and
	// its outcome is unknown.
	unanswered := "apiVersion: v1\nkind: Config\n" +
		"clusters: [{name: c, cluster: {server: \"http://" + silentServer(t) + "\"}}]\n" +
		"users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n"
	marshal := func(m map[string]any) *structpb.Struct {
		s, err := rpcplugin.MarshalProperties(resource.NewPropertyMapFromMap(m), rpcplugin.MarshalOptions{KeepSecrets: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, err := p.Configure(ctx, &rpc.ConfigureRequest{Args: marshal(map[string]any{"kubeconfig": unanswered, "requestTimeout": "1s"}),
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
		t.Fatal("Create against a server that never answers succeeded")
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

// silentServer listens on a port of 127.0.0.1 that takes every connection and reads
// what is sent, never answering; it returns the address.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, conn) }()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String()
}
