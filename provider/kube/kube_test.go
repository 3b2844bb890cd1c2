package kube

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

func TestMerge3KeepsOthersKeysAndDropsOursRemoved(t *testing.T) {
	t.Parallel()
	live := map[string]string{"ours": "1", "dropped": "x", "theirs": "t"}
	old := map[string]string{"ours": "1", "dropped": "x"}
	desired := map[string]string{"ours": "2", "added": "a"}
	want := map[string]string{"ours": "2", "added": "a", "theirs": "t"}
	if diff := cmp.Diff(want, merge3(live, old, desired)); diff != "" {
		t.Errorf("merge3 (-want +got):\n%s", diff)
	}
	if got := merge3(nil, map[string]string{"a": "1"}, nil); got != nil {
		t.Errorf("merge3 of nothing left = %v, want nil (no empty map written)", got)
	}
}

func TestParseImportID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id, wantNS, wantSelector string
		wantLimit                int64
		wantErr                  bool
	}{
		{id: "apps?labelSelector=app%3Dweb&limit=2", wantNS: "apps", wantSelector: "app=web", wantLimit: 2},
		{id: "apps", wantNS: "apps", wantLimit: defaultImportPageSize},
		{id: "?labelSelector=tier+in+(a,b)", wantNS: "fallback", wantSelector: "tier in (a,b)", wantLimit: defaultImportPageSize},
		{id: "apps?limit=0", wantErr: true},
		{id: "apps?selector=x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			ns, opts, err := parseImportID(tt.id, "fallback")
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err == nil && (ns != tt.wantNS || opts.LabelSelector != tt.wantSelector || opts.Limit != tt.wantLimit) {
				t.Errorf("got %s %q %d, want %s %q %d", ns, opts.LabelSelector, opts.Limit, tt.wantNS, tt.wantSelector, tt.wantLimit)
			}
		})
	}
}

// TestInvalidIDsSayTheForm checks that an ID of the wrong form names the kind and
// shows the right form with an example.
func TestInvalidIDsSayTheForm(t *testing.T) {
	t.Parallel()
	sliceForm := "an EndpointSlice ID is <namespace>/<name>, such as default/web-1a2b3c (a bare name means the provider's namespace); " +
		"an EndpointsList's ID is <namespace>?labelSelector=<selector>, such as default?labelSelector=app%3Dweb"
	tests := []struct {
		name, id string
		parse    func(id string) error
		want     string
	}{
		{"slice ID with two slashes", "apps/web/1", sliceID, `invalid EndpointSlice ID "apps/web/1": ` + sliceForm},
		{"slice ID without a name", "apps/", sliceID, `invalid EndpointSlice ID "apps/": ` + sliceForm},
		{"slice ID without a namespace", "/web", sliceID, `invalid EndpointSlice ID "/web": ` + sliceForm},
		{"list ID of a slice's form", "apps/web", listID, `invalid EndpointsList ID "apps/web": an EndpointsList's ID is ` +
			"<namespace>?labelSelector=<selector>, such as default?labelSelector=app%3Dweb (every Endpoints of the namespace " +
			"that the selector matches); <namespace>/<name> is one EndpointSlice's ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.parse(tt.id)
			if err == nil || err.Error() != tt.want {
				t.Errorf("parsing %q: error %v, want %s", tt.id, err, tt.want)
			}
		})
	}
}

func sliceID(id string) error {
	_, err := parseObjectID(endpointSliceKind, id, "fallback")
	return err
}

func listID(id string) error {
	_, _, err := parseImportID(id, "fallback")
	return err
}

func TestDiffInputs(t *testing.T) {
	t.Parallel()
	slice := func(addressType, name, port string) property.Map {
		return property.NewMap(map[string]property.Value{
			"addressType": property.New(addressType),
			"metadata": property.New(map[string]property.Value{
				"name": property.New(name), "namespace": property.New("default"),
			}),
			"ports": property.New([]property.Value{property.New(port)}),
		})
	}
	tests := []struct {
		name       string
		olds, news property.Map
		want       map[string]p.DiffKind
		dbr        bool
	}{
		{"no change", slice("IPv4", "a", "80"), slice("IPv4", "a", "80"), map[string]p.DiffKind{}, false},
		{"port", slice("IPv4", "a", "80"), slice("IPv4", "a", "81"), map[string]p.DiffKind{"ports": p.Update}, false},
		{"address type, same fixed name", slice("IPv4", "a", "80"), slice("IPv6", "a", "80"),
			map[string]p.DiffKind{"addressType": p.UpdateReplace}, true},
		{"address type and a new name", slice("IPv4", "a", "80"), slice("IPv6", "b", "80"),
			map[string]p.DiffKind{"addressType": p.UpdateReplace, "metadata.name": p.UpdateReplace}, false},
		{"secret and plain values compare by value", slice("IPv4", "a", "80"),
			slice("IPv4", "a", "80").Set("addressType", property.New("IPv4").WithSecret(true)), map[string]p.DiffKind{}, false},
		{"server defaults are no change", slice("IPv4", "a", "80").Delete("ports"),
			slice("IPv4", "a", "80").Set("ports", property.New(property.Null)), map[string]p.DiffKind{}, false},
		{"empty labels are no change", slice("IPv4", "a", "80"),
			slice("IPv4", "a", "80").Set("metadata", property.New(property.NewMap(map[string]property.Value{
				"name": property.New("a"), "namespace": property.New("default"), "labels": property.New(property.Map{}),
			}))), map[string]p.DiffKind{}, false},
		{"ports removed", slice("IPv4", "a", "80"), slice("IPv4", "a", "80").Delete("ports"),
			map[string]p.DiffKind{"ports": p.Delete}, false},
		{"ports added", slice("IPv4", "a", "80").Delete("ports"), slice("IPv4", "a", "80"),
			map[string]p.DiffKind{"ports": p.Add}, false},
		{"unknown is a change", slice("IPv4", "a", "80"),
			slice("IPv4", "a", "80").Set("ports", property.New(property.Computed)), map[string]p.DiffKind{"ports": p.Update}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := diffInputs(endpointSliceKind, tt.olds, tt.news)
			got := map[string]p.DiffKind{}
			for k, v := range d.DetailedDiff {
				got[k] = v.Kind
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("detailed diff (-want +got):\n%s", diff)
			}
			if d.HasChanges != (len(tt.want) > 0) || d.DeleteBeforeReplace != tt.dbr {
				t.Errorf("HasChanges %v, DeleteBeforeReplace %v; want %v, %v", d.HasChanges, d.DeleteBeforeReplace,
					len(tt.want) > 0, tt.dbr)
			}
		})
	}
}

// Check names an item with generateName as the API server names objects: the prefix
// and 5 random characters, the prefix cut only where the name would exceed the
// server's 253 characters.
func TestGeneratedItemName(t *testing.T) {
	t.Parallel()
	long, longest := strings.Repeat("a", 100), strings.Repeat("a", 253)
	tests := []struct{ prefix, wantPrefix string }{
		{"web-", "web-"},
		{long, long},
		{longest, longest[:248]},
	}
	for _, tt := range tests {
		name, err := generatedItemName([]byte("seed"), tt.prefix)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(name, tt.wantPrefix) || len(name) != len(tt.wantPrefix)+5 ||
			strings.Trim(name[len(tt.wantPrefix):], string(generatedNameChars)) != "" {
			t.Errorf("generatedItemName(%q) = %q, want %q and 5 random characters", tt.prefix, name, tt.wantPrefix)
		}
		if again, _ := generatedItemName([]byte("seed"), tt.prefix); again != name {
			t.Errorf("generatedItemName(%q) = %q, then %q from the same seed", tt.prefix, name, again)
		}
	}
}
