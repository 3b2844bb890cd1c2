package provider

import (
	"path/filepath"
	"testing"

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
	srv := protocolServer{ResourceProviderServer: inner, refreshBeforeUpdate: s.refreshBeforeUpdate}
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
