package lifecycle_test

import (
	"context"
	"slices"
	"testing"

	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/endpoints-provider/pulumi-endpoints/provider"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// The provider these tests run (inprocess.Provider) is the gRPC server the plugin
// serves, so what that server adds to pulumi-go-provider's runs here against the
// cluster: the engine's autonaming options reach Check, refreshBeforeUpdate marks what
// Create answers, and List streams the object created.
func TestServedProtocolInProcess(t *testing.T) {
	t.Parallel()
	ctx, ns := t.Context(), newNamespace(t)
	srv := provider.New(ctx)
	if _, err := srv.Configure(ctx, &rpc.ConfigureRequest{Args: structOf(t, map[string]any{
		"kubeconfig":          string(controlplane.Shared(t).Kubeconfig()),
		"refreshBeforeUpdate": true,
	})}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	urn := "urn:pulumi:dev::protocol::" + spec.EndpointSliceToken + "::paymentsSlice"
	checked, err := srv.Check(ctx, &rpc.CheckRequest{
		Urn: urn, Name: "paymentsSlice", Type: spec.EndpointSliceToken,
		News: structOf(t, map[string]any{
			"metadata":    map[string]any{"namespace": ns},
			"addressType": "IPv4",
			"endpoints":   []any{map[string]any{"addresses": []any{"10.0.0.1"}}},
		}),
		Autonaming: &rpc.CheckRequest_AutonamingOptions{
			Mode: rpc.CheckRequest_AutonamingOptions_ENFORCE, ProposedName: "payments-blue",
		},
	})
	if err != nil || len(checked.GetFailures()) > 0 {
		t.Fatalf("Check: %v %v", err, checked.GetFailures())
	}
	name := checked.GetInputs().GetFields()["metadata"].GetStructValue().GetFields()["name"].GetStringValue()
	if name != "payments-blue" {
		t.Fatalf("Check named the slice %q, want the engine's enforced name payments-blue", name)
	}
	created, err := srv.Create(ctx, &rpc.CreateRequest{Urn: urn, Properties: checked.GetInputs()})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if !created.GetRefreshBeforeUpdate() {
		t.Error("Create answered without refresh_before_update, with refreshBeforeUpdate on")
	}
	stream := &listStream{ctx: ctx}
	if err := srv.List(&rpc.ListRequest{
		Token: spec.EndpointSliceToken, Query: structOf(t, map[string]any{"namespace": ns}),
	}, stream); err != nil {
		t.Fatalf("List: %v", err)
	}
	if want := ns + "/payments-blue"; !slices.Contains(stream.ids(), want) {
		t.Errorf("List streamed %v, want %s among them", stream.ids(), want)
	}
}

// listStream is the server's side of a List stream that keeps what is sent.
type listStream struct {
	grpc.ServerStream
	ctx  context.Context
	sent []*rpc.ListResponse
}

func (s *listStream) Context() context.Context { return s.ctx }

func (s *listStream) Send(r *rpc.ListResponse) error {
	s.sent = append(s.sent, r)
	return nil
}

// ids are the IDs of the results streamed.
func (s *listStream) ids() []string {
	var ids []string
	for _, r := range s.sent {
		if res := r.GetResult(); res != nil {
			ids = append(ids, res.GetId())
		}
	}
	return ids
}

func structOf(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
