package lifecycle_test

import (
	"strings"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// TestRenderFixedNameReplacementQuiet: in render mode a slice replaced under the same
// name is still deleted before it is created, but no Service reads a manifest, so the
// Diff warns of no gap in its endpoints.
func TestRenderFixedNameReplacementQuiet(t *testing.T) {
	t.Parallel()
	srv := renderProvider(t, t.TempDir(), nil)
	u := urn(spec.EndpointSliceToken, "renderedDbSlice")
	withName := func(in property.Map) property.Map {
		return in.Set("metadata", property.New(obj("namespace", "apps", "name", "db")))
	}
	olds := check(t, srv, u, property.Map{}, withName(sliceInputs("apps", "IPv4", "10.0.0.1", 80)))
	news := check(t, srv, u, olds, withName(sliceInputs("apps", "IPv6", "fd00::1", 80)))
	d, err := srv.Diff(p.DiffRequest{Urn: u, OldInputs: olds, Inputs: news})
	if err != nil || !d.DeleteBeforeReplace {
		t.Fatalf("Diff of a fixed-name replacement = %+v, %v; want delete-first", d, err)
	}
	if got := logs.Lines("WARN", string(u)); len(got) != 0 {
		t.Errorf("a rendered replacement under the same name warned:\n%s", strings.Join(got, "\n"))
	}
}
