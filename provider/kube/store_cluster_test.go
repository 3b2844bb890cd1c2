package kube

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
)

func TestLookupTellsGetAndImportFromRefresh(t *testing.T) {
	t.Parallel()
	null := property.New(property.Null)
	recorded := property.NewMap(map[string]property.Value{
		"metadata": property.New(map[string]property.Value{"name": property.New("web")}),
	})
	tests := []struct {
		name string
		req  p.ReadRequest
		want bool
	}{
		{"import: the ID alone", p.ReadRequest{ID: "apps/web"}, true},
		{"get with null properties", p.ReadRequest{ID: "apps/web",
			Properties: property.NewMap(map[string]property.Value{"metadata": null, "items": null}),
			Inputs:     property.NewMap(map[string]property.Value{"metadata": null, "items": null})}, true},
		{"refresh: the recorded state", p.ReadRequest{ID: "apps/web", Properties: recorded, Inputs: recorded}, false},
		{"refresh of a got resource: state, no inputs", p.ReadRequest{ID: "apps/web", Properties: recorded}, false},
	}
	for _, tt := range tests {
		if got := lookup(tt.req); got != tt.want {
			t.Errorf("%s: lookup = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestNotFoundNamesTheObjectAndTheCluster(t *testing.T) {
	t.Parallel()
	o := kindClient{kind: endpointSliceKind, client: &Client{REST: &rest.Config{Host: "https://10.9.8.7:6443"}, Namespace: "apps"}}
	for raw, want := range map[string][]string{
		"apps/web": {"EndpointSlice apps/web does not exist on the Kubernetes API server https://10.9.8.7:6443 (404)"},
		"web": {"EndpointSlice apps/web does not exist", `the ID "web" names no namespace`,
			`provider's namespace "apps"`},
	} {
		id, err := parseObjectID(endpointSliceKind, raw, o.client.Namespace)
		if err != nil {
			t.Fatal(err)
		}
		msg := o.notFound(raw, id).Error()
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("notFound(%q) = %q, want it to contain %q", raw, msg, w)
			}
		}
	}
}

// A create marks its object with the resource's URN (a copy: the caller's object is
// left as it was), and the object counts as the resource's own only when it carries
// that URN: not another stack's, not another resource's, not an unmarked one. A
// create adopts its own object, unless it is being deleted or it is the one the state
// records (a replacement under the same name), which is an error saying so.
func TestOwnerMark(t *testing.T) {
	t.Parallel()
	const typ = "endpoints:discovery.k8s.io/v1:EndpointSlice"
	web := resource.NewURN("dev", "shop", "", typ, "web")
	o := kindClient{kind: endpointSliceKind, owner: web}
	desired := liveObject(t, `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice",`+
		`"metadata":{"name":"web","namespace":"ns","annotations":{"team":"a"}}}`)
	mine := o.marked(desired)
	markedCopy(t, o, desired, mine)
	going := mine.DeepCopy()
	now := metav1.Now()
	going.SetDeletionTimestamp(&now)
	tests := []struct {
		name      string
		owner     resource.URN
		inState   []objectID
		live      *unstructured.Unstructured
		want      bool // the claim holds it
		adopted   bool
		errorSays string
	}{
		{"its own", web, nil, mine, true, true, ""},
		{"another stack's", resource.NewURN("prod", "shop", "", typ, "web"), nil, mine, false, false, ""},
		{"another resource's", resource.NewURN("dev", "shop", "", typ, "api"), nil, mine, false, false, ""},
		{"unmarked", web, nil, desired, false, false, ""},
		{"no owner", "", nil, mine, false, false, ""},
		{"its own, being deleted", web, nil, going, true, false, ""},
		{"its own, the one the state records", web, []objectID{idOf(mine)}, mine, true, false, "deleteBeforeReplace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ownerClaim(tt.owner).holds(tt.live); got != tt.want {
				t.Errorf("ownerClaim.holds = %v, want %v", got, tt.want)
			}
			body, err := tt.live.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			f, c := startFake(t, map[string]fakeAnswer{
				"GET " + slicesPath + "/web": {http.StatusOK, string(body)},
				"PUT " + slicesPath + "/web": {http.StatusOK, string(body)},
			})
			o := kindClient{kind: endpointSliceKind, client: c, owner: tt.owner, inState: tt.inState}
			out, ours, err := o.adopt(t.Context(), desired, errors.New("409"))
			if (out != nil) != tt.adopted || f.sent(http.MethodPut) != tt.adopted {
				t.Errorf("adopt = %v, %v, %v (requests %v); want adopted: %v", out, ours, err, f.requests, tt.adopted)
			}
			if tt.errorSays != "" && (err == nil || !strings.Contains(err.Error(), tt.errorSays)) {
				t.Errorf("adopt error = %v; want it to say %q", err, tt.errorSays)
			}
		})
	}
}

// markedCopy fails the test unless mine, o's marked copy of desired, carries o's URN
// and desired is left as it was, and unless a client with no owner marks nothing.
func markedCopy(t *testing.T, o kindClient, desired, mine *unstructured.Unstructured) {
	t.Helper()
	if d := cmp.Diff(map[string]string{"team": "a", OwnerAnnotation: string(o.owner)}, mine.GetAnnotations()); d != "" {
		t.Errorf("marked annotations (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"team": "a"}, desired.GetAnnotations()); d != "" {
		t.Errorf("marked changed the caller's object (-want +got):\n%s", d)
	}
	if got := (kindClient{}).marked(desired); got != desired {
		t.Error("marked without an owner copied or changed the object")
	}
}
