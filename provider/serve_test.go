package provider

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"google.golang.org/grpc"

	p "github.com/pulumi/pulumi-go-provider"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// The plugin's gRPC server marks what Create, Read and Update answer with
// refresh_before_update exactly when the setting in force is on: a preview's and an
// update's writes, and the reads of refresh and import. The provider renders to a
// directory, so every call takes effect with no cluster.
func TestProtocolServerMarksRefreshBeforeUpdate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		setting any // the refreshBeforeUpdate setting; nil leaves it unset
		env     string
		want    bool
	}{
		{name: "unset: off", want: false},
		{name: "on", setting: true, want: true},
		{name: "off", setting: false, want: false},
		{name: "on from the environment", env: "true", want: true},
		{name: "a setting beats the environment", setting: "false", env: "true", want: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := protocolTestServer(t, tt.setting, tt.env)
			got := protocolCalls(t, srv)
			for call, marked := range got {
				if marked != tt.want {
					t.Errorf("%s answered refresh_before_update %v, want %v", call, marked, tt.want)
				}
			}
			if len(got) != 5 {
				t.Errorf("%d calls answered, want 5: %v", len(got), got)
			}
		})
	}
}

// protocolTestServer is the plugin's gRPC server, as Serve builds it, configured to
// render into a temporary directory with the given refreshBeforeUpdate setting and
// PULUMI_ENDPOINTS_REFRESH_BEFORE_UPDATE.
func protocolTestServer(t *testing.T, setting any, env string) rpc.ResourceProviderServer {
	t.Helper()
	s := newServer(t.Context(), func(k string) string {
		if k == "PULUMI_ENDPOINTS_REFRESH_BEFORE_UPDATE" {
			return env
		}
		return ""
	})
	inner, err := p.RawServer(Name, Version, s.provider())(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := s.protocolServer(inner)
	args := map[string]any{"renderDirectory": filepath.Join(t.TempDir(), "out")}
	if setting != nil {
		args["refreshBeforeUpdate"] = setting
	}
	if _, err := srv.Configure(t.Context(), &rpc.ConfigureRequest{Args: mustStruct(t, args)}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return srv
}

// protocolCalls creates, reads, updates and previews a slice through srv and returns,
// for each call, whether its answer carries refresh_before_update.
func protocolCalls(t *testing.T, srv rpc.ResourceProviderServer) map[string]bool {
	t.Helper()
	ctx := t.Context()
	urn := "urn:pulumi:dev::drift::" + spec.EndpointSliceToken + "::web"
	inputs := func(address string) *structpb.Struct {
		checked, err := srv.Check(ctx, &rpc.CheckRequest{Urn: urn, News: mustStruct(t, map[string]any{
			"metadata":    map[string]any{"name": "web-1", "namespace": "default"},
			"addressType": "IPv4",
			"endpoints":   []any{map[string]any{"addresses": []any{address}}},
		})})
		if err != nil || len(checked.GetFailures()) > 0 {
			t.Fatalf("Check: %v %v", err, checked.GetFailures())
		}
		return checked.GetInputs()
	}
	got := map[string]bool{}
	preview, err := srv.Create(ctx, &rpc.CreateRequest{Urn: urn, Properties: inputs("10.0.0.1"), Preview: true})
	if err != nil {
		t.Fatalf("Create (preview): %v", err)
	}
	got["Create (preview)"] = preview.GetRefreshBeforeUpdate()
	created, err := srv.Create(ctx, &rpc.CreateRequest{Urn: urn, Properties: inputs("10.0.0.1")})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	got["Create"] = created.GetRefreshBeforeUpdate()
	read, err := srv.Read(ctx, &rpc.ReadRequest{Id: created.GetId(), Urn: urn, Properties: created.GetProperties()})
	if err != nil || read.GetId() == "" {
		t.Fatalf("Read: %v, ID %q", err, read.GetId())
	}
	got["Read"] = read.GetRefreshBeforeUpdate()
	imported, err := srv.Read(ctx, &rpc.ReadRequest{Id: created.GetId(), Urn: urn})
	if err != nil || imported.GetId() == "" {
		t.Fatalf("Read (import): %v, ID %q", err, imported.GetId())
	}
	got["Read (import)"] = imported.GetRefreshBeforeUpdate()
	updated, err := srv.Update(ctx, &rpc.UpdateRequest{
		Id: created.GetId(), Urn: urn, Olds: created.GetProperties(), News: inputs("10.0.0.2"),
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	got["Update"] = updated.GetRefreshBeforeUpdate()
	return got
}

func mustStruct(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The engine's autonaming options reach Check in kube's terms, mode and proposed name
// alike; a request without them carries none.
func TestAutonamingOptions(t *testing.T) {
	t.Parallel()
	if got := autonaming(nil); got != nil {
		t.Errorf("autonaming(nil) = %+v, want nil", got)
	}
	for mode, want := range map[rpc.CheckRequest_AutonamingOptions_Mode]kube.AutonamingMode{
		rpc.CheckRequest_AutonamingOptions_PROPOSE: kube.AutonamePropose,
		rpc.CheckRequest_AutonamingOptions_ENFORCE: kube.AutonameEnforce,
		rpc.CheckRequest_AutonamingOptions_DISABLE: kube.AutonameDisable,
	} {
		got := autonaming(&rpc.CheckRequest_AutonamingOptions{Mode: mode, ProposedName: "web-x"})
		if got == nil || *got != (kube.Autonaming{Mode: want, ProposedName: "web-x"}) {
			t.Errorf("autonaming(%v) = %+v, want mode %v and the proposed name", mode, got, want)
		}
	}
}

// listStream records what List sends, and the continuation token.
type listStream struct {
	grpc.ServerStream // only Context and Send are called
	ctx               context.Context
	sent              []string
	token             string
}

func (s *listStream) Context() context.Context { return s.ctx }

func (s *listStream) Send(r *rpc.ListResponse) error {
	switch {
	case r.GetComputed() != nil:
		s.sent = append(s.sent, "computed")
	case r.GetResult() != nil:
		s.sent = append(s.sent, "result "+r.GetResult().GetId()+" "+r.GetResult().GetName())
	case r.GetContinuation() != nil:
		s.sent = append(s.sent, "continuation")
		s.token = r.GetContinuation().GetContinuationToken()
	}
	return nil
}

// List streams a page as the protocol orders it: results, then the continuation
// token when there are more; a query with unknown values gets Computed alone. The
// provider renders, so the objects listed are the manifests its creates wrote.
func TestProtocolServerList(t *testing.T) {
	t.Parallel()
	srv := protocolTestServer(t, nil, "")
	for _, name := range []string{"a", "b", "c"} {
		urn := "urn:pulumi:dev::list::" + spec.EndpointSliceToken + "::" + name
		checked, err := srv.Check(t.Context(), &rpc.CheckRequest{Urn: urn, News: mustStruct(t, map[string]any{
			"metadata":    map[string]any{"name": name, "namespace": "apps"},
			"addressType": "IPv4",
			"endpoints":   []any{map[string]any{"addresses": []any{"10.0.0.1"}}},
		})})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Create(t.Context(), &rpc.CreateRequest{Urn: urn, Properties: checked.GetInputs()}); err != nil {
			t.Fatal(err)
		}
	}
	list := func(req *rpc.ListRequest, query map[string]any) ([]string, string) {
		t.Helper()
		req.Token = spec.EndpointSliceToken
		req.Query = mustStruct(t, query)
		stream := &listStream{ctx: t.Context()}
		if err := srv.List(req, stream); err != nil {
			t.Fatal(err)
		}
		return stream.sent, stream.token
	}
	first, token := list(&rpc.ListRequest{PageSize: 2}, map[string]any{"namespace": "apps"})
	if diff := cmp.Diff([]string{"result apps/a a", "result apps/b b", "continuation"}, first); diff != "" {
		t.Errorf("first page (-want +got):\n%s", diff)
	}
	second, _ := list(&rpc.ListRequest{PageSize: 2, ContinuationToken: token}, map[string]any{"namespace": "apps"})
	if diff := cmp.Diff([]string{"result apps/c c"}, second); diff != "" {
		t.Errorf("second page (-want +got):\n%s", diff)
	}
	computed, _ := list(&rpc.ListRequest{}, map[string]any{"namespace": plugin.UnknownStringValue})
	if diff := cmp.Diff([]string{"computed"}, computed); diff != "" {
		t.Errorf("a query with an unknown value (-want +got):\n%s", diff)
	}
}
