package kube

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
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

// Check keeps an autoname exactly when Diff finds no replacement: both ask replacedBy.
func TestCheckKeepsAnAutonameUnlessTheChangeReplaces(t *testing.T) {
	t.Parallel()
	const urn = resource.URN("urn:pulumi:dev::proj::endpoints:discovery.k8s.io/v1:EndpointSlice::web")
	const autoname = "web-0a1b2c3d"
	olds := inputsOf(t, `{"metadata":{"name":"`+autoname+`","namespace":"apps","labels":{"a":"1"}},`+
		`"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"port":80}]}`)
	tests := []struct {
		name, news string
		keep       bool
	}{
		{"no change", `{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"port":80}]}`, true},
		{"a port and a label", `{"metadata":{"labels":{"a":"2"}},"addressType":"IPv4","ports":[{"port":81}]}`, true},
		{"the namespace spelled out", `{"metadata":{"namespace":"apps"},"addressType":"IPv4"}`, true},
		{"the address type", `{"addressType":"IPv6","endpoints":[{"addresses":["::1"]}],"ports":[{"port":80}]}`, false},
		{"the namespace", `{"metadata":{"namespace":"web"},"addressType":"IPv4"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			news, _, failures := assignMetadata(t.Context(), endpointSliceKind, urn, inputsOf(t, tt.news), olds, "apps")
			if len(failures) > 0 {
				t.Fatalf("failures: %v", failures)
			}
			name, _ := stringField(mapField(news, "metadata"), "name")
			if kept := name == autoname; kept != tt.keep {
				t.Errorf("name %q: kept %v, want %v", name, kept, tt.keep)
			}
			replaced := false
			for _, c := range diffInputs(endpointSliceKind, olds, news).DetailedDiff {
				replaced = replaced || Replaces(c.Kind)
			}
			if replaced == tt.keep {
				t.Errorf("Diff replaces: %v, but Check kept the name: %v", replaced, tt.keep)
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

// A client without settings of its own gets schema.json's defaults of qps, burst and
// requestTimeout.
func TestClientDefaultsAreTheSchemas(t *testing.T) {
	t.Parallel()
	c, err := NewClient(Config{Kubeconfig: `{"apiVersion": "v1", "kind": "Config",
"clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:1"}}],
"contexts": [{"name": "x", "context": {"cluster": "c"}}], "current-context": "x"}`})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	vars := spec.MustLoad().Config.Variables
	timeout, err := time.ParseDuration(fmt.Sprint(vars["requestTimeout"].Default))
	if err != nil {
		t.Fatalf("schema.json's requestTimeout default: %v", err)
	}
	got := []any{float64(c.REST.QPS), float64(c.REST.Burst), c.REST.Timeout}
	want := []any{vars["qps"].Default, vars["burst"].Default, timeout}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the client's qps, burst and request timeout (-schema.json +client):\n%s", diff)
	}
	if DefaultQPS() != float64(c.REST.QPS) || DefaultBurst() != c.REST.Burst || DefaultRequestTimeout() != c.REST.Timeout {
		t.Errorf("DefaultQPS, DefaultBurst, DefaultRequestTimeout = %g, %d, %s; the client has %g, %d, %s",
			DefaultQPS(), DefaultBurst(), DefaultRequestTimeout(), c.REST.QPS, c.REST.Burst, c.REST.Timeout)
	}
}
