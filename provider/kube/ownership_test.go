package kube

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// fakeServer is an API server that answers each request by its method and path from
// answers ("GET /apis/..."; 404 for the others) and records the requests it got.
type fakeServer struct {
	mu       sync.Mutex
	requests []string
}

// fakeAnswer is an answer of a fakeServer: a status and a JSON body.
type fakeAnswer struct {
	code int
	body string
}

// startFake starts a fakeServer for the test and returns it with a client for it.
func startFake(t *testing.T, answers map[string]fakeAnswer) (*fakeServer, *Client) {
	t.Helper()
	f := &fakeServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		key := r.Method + " " + r.URL.Path
		f.mu.Lock()
		f.requests = append(f.requests, key)
		f.mu.Unlock()
		a, ok := answers[key]
		if !ok {
			a = fakeAnswer{http.StatusNotFound, statusBody(http.StatusNotFound, "NotFound", "not found")}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.code)
		_, _ = io.WriteString(w, a.body)
	}))
	t.Cleanup(srv.Close)
	return f, kindClientAt(t, strings.TrimPrefix(srv.URL, "http://"), 0).client
}

// sent tells whether the server got a request of that method.
func (f *fakeServer) sent(method string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.requests {
		if strings.HasPrefix(r, method+" ") {
			return true
		}
	}
	return false
}

// statusBody is a Status answer of the API server.
func statusBody(code int, reason, message string) string {
	return `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"` + message + `","reason":"` + reason +
		`","code":` + strconv.Itoa(code) + `}`
}

const (
	slicesPath  = "/apis/discovery.k8s.io/v1/namespaces/ns/endpointslices"
	itemsPath   = "/api/v1/namespaces/ns/endpoints"
	sliceURN    = resource.URN("urn:pulumi:dev::p::endpoints:discovery.k8s.io/v1:EndpointSlice::web")
	listURN     = resource.URN("urn:pulumi:dev::p::endpoints:core/v1:EndpointsList::web")
	otherURN    = "urn:pulumi:prod::p::endpoints:discovery.k8s.io/v1:EndpointSlice::web"
	otherHolder = `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"web","namespace":"ns",` +
		`"uid":"their-uid","resourceVersion":"7","annotations":{"` + OwnerAnnotation + `":"` + otherURN + `"}},` +
		`"addressType":"IPv4","endpoints":[]}`
	otherItem = `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"web","namespace":"ns",` +
		`"uid":"their-uid","resourceVersion":"7","annotations":{"` + OwnerAnnotation + `":"` + otherURN + `"}}}`
)

var (
	webSlice = property.NewMap(map[string]property.Value{
		"metadata": property.New(map[string]property.Value{
			"name": property.New("web"), "namespace": property.New("ns"),
		}),
		"addressType": property.New("IPv4"),
		"endpoints":   property.New([]property.Value{}),
	})
	webList = property.NewMap(map[string]property.Value{"items": property.New([]property.Value{
		property.New(map[string]property.Value{"metadata": property.New(map[string]property.Value{
			"name": property.New("web"), "namespace": property.New("ns"),
		})}),
	})})
)

// A create whose name another stack's object holds gets a definite 409; when the read
// that tells whether the holder is this resource's fails (a 503), the create failed
// all the same: nothing is recorded, for a slice and for a list's item alike.
func TestRefusedCreateRecordsNothingWhenTheHolderCannotBeRead(t *testing.T) {
	t.Parallel()
	unavailable := fakeAnswer{http.StatusServiceUnavailable, statusBody(http.StatusServiceUnavailable,
		"ServiceUnavailable", "etcd is unavailable")}
	taken := fakeAnswer{http.StatusConflict, statusBody(http.StatusConflict, "AlreadyExists", "web already exists")}
	for _, tc := range []struct {
		name string
		path string
		run  func(*Kubernetes) (any, *p.InitializationFailed, error)
	}{
		{"slice", slicesPath, func(k *Kubernetes) (any, *p.InitializationFailed, error) {
			resp, err := k.EndpointSlice().Create(t.Context(), p.CreateRequest{Urn: sliceURN, Properties: webSlice})
			return resp.ID, resp.PartialState, err
		}},
		{"list item", itemsPath, func(k *Kubernetes) (any, *p.InitializationFailed, error) {
			resp, err := k.EndpointsList().Create(t.Context(), p.CreateRequest{Urn: listURN, Properties: webList})
			return resp.ID, resp.PartialState, err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, c := startFake(t, map[string]fakeAnswer{"POST " + tc.path: taken, "GET " + tc.path + "/web": unavailable})
			id, state, err := tc.run(kubernetesWith(t, Config{}, c))
			if err == nil || !strings.Contains(err.Error(), "already exists") {
				t.Errorf("create = %v; want the 409 that the name is taken", err)
			}
			if state != nil || id != "" {
				t.Errorf("the refused create recorded ID %q, partial state %v; want nothing recorded", id, state)
			}
		})
	}
}

// A state that records an object by name alone (a create whose answer, a 409, was
// lost) stands for the object under that name only when it carries the resource's
// URN: another stack's object there is neither written, deleted nor recorded.
func TestUnconfirmedStateLeavesAnotherOwnersObjectAlone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		path  string
		holds string
		k     func(*Kubernetes) Lifecycle
		urn   resource.URN
		state property.Map
	}{
		{"slice", slicesPath, otherHolder, (*Kubernetes).EndpointSlice, sliceURN, webSlice},
		{"list item", itemsPath, otherItem, (*Kubernetes).EndpointsList, listURN, webList},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, c := startFake(t, map[string]fakeAnswer{
				"GET " + tc.path + "/web": {http.StatusOK, tc.holds},
				"GET " + tc.path:          {http.StatusOK, `{"kind":"List","apiVersion":"v1","metadata":{},"items":[` + tc.holds + `]}`},
				"PUT " + tc.path + "/web": {http.StatusOK, tc.holds},
				"POST " + tc.path: {http.StatusConflict, statusBody(http.StatusConflict, "AlreadyExists",
					"web already exists")},
				"DELETE " + tc.path + "/web": {http.StatusOK, `{"kind":"Status","apiVersion":"v1","status":"Success"}`},
			})
			r := tc.k(kubernetesWith(t, Config{}, c))
			const id = "ns/web"
			read, err := r.Read(t.Context(), p.ReadRequest{ID: id, Urn: tc.urn, Properties: tc.state, Inputs: tc.state})
			if err != nil || read.ID != "" {
				t.Errorf("refresh = %q, %v; want the resource gone: the object under its name is another's", read.ID, err)
			}
			changed := tc.state.Set("metadata", property.New(map[string]property.Value{"labels": property.New(
				map[string]property.Value{"team": property.New("a")})}))
			if _, err := r.Update(t.Context(), p.UpdateRequest{ID: id, Urn: tc.urn, State: tc.state,
				OldInputs: tc.state, Inputs: changed}); err == nil {
				t.Error("the update succeeded; want the 409 of the name another's object holds")
			}
			if err := r.Delete(t.Context(), p.DeleteRequest{ID: id, Urn: tc.urn, Properties: tc.state}); err != nil {
				t.Errorf("delete = %v; want nothing to delete", err)
			}
			if f.sent(http.MethodPut) || f.sent(http.MethodDelete) {
				t.Errorf("requests %v: another owner's object was written or deleted", f.requests)
			}
		})
	}
}

// Check counts the URN annotation that every write of a cluster adds against the
// limit of an object's annotations: inputs that reach the limit with it are refused,
// those one byte short of it pass, for a slice and for a list's item; a render
// directory's manifests carry no URN, so there the inputs alone count.
func TestCheckCountsTheURNAnnotation(t *testing.T) {
	t.Parallel()
	_, c := startFake(t, nil)
	const limit = 256 * 1024
	for _, tc := range []struct {
		name   string
		urn    resource.URN
		k      func(*Kubernetes) Lifecycle
		inputs func(annotations property.Value) property.Map
	}{
		{"slice", sliceURN, (*Kubernetes).EndpointSlice, func(a property.Value) property.Map {
			return webSlice.Set("metadata", property.New(map[string]property.Value{
				"name": property.New("web"), "namespace": property.New("ns"), "annotations": a,
			}))
		}},
		{"list item", listURN, (*Kubernetes).EndpointsList, func(a property.Value) property.Map {
			return property.NewMap(map[string]property.Value{"items": property.New([]property.Value{
				property.New(map[string]property.Value{"metadata": property.New(map[string]property.Value{
					"name": property.New("web"), "namespace": property.New("ns"), "annotations": a,
				})}),
			})})
		}},
	} {
		for _, render := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, render %v", tc.name, render), func(t *testing.T) {
				t.Parallel()
				cfg := Config{}
				if render {
					cfg.RenderDirectory = t.TempDir()
				}
				r := tc.k(kubernetesWith(t, cfg, c))
				added := len(OwnerAnnotation) + len(tc.urn)
				if render {
					added = 0
				}
				for _, over := range []int{0, -1} {
					// One annotation "a" whose value brings the total to the limit plus over.
					value := strings.Repeat("x", limit-added-len("a")+over+1)
					resp, err := r.Check(t.Context(), p.CheckRequest{Urn: tc.urn,
						Inputs: tc.inputs(property.New(map[string]property.Value{"a": property.New(value)}))})
					refused := slices.ContainsFunc(resp.Failures, func(f p.CheckFailure) bool {
						return strings.Contains(f.Reason, "256 KiB")
					})
					if err != nil || refused != (over == 0) {
						t.Errorf("%d byte(s) over the limit with what the writes add: refused %v (%v, %+v), want %v",
							over+1, refused, err, resp.Failures, over == 0)
					}
				}
			})
		}
	}
}

// The provider's dispatch and List read one table of the resources, by type token: a
// token the table lacks is not listed either.
func TestOneTableOfResources(t *testing.T) {
	t.Parallel()
	k := New(Config{})
	got := slices.Sorted(maps.Keys(k.Resources()))
	if d := cmp.Diff([]string{spec.EndpointsListToken, spec.EndpointSliceToken}, got); d != "" {
		t.Errorf("Resources (-want +got):\n%s", d)
	}
	_, err := k.List(t.Context(), ListRequest{Token: "endpoints:core/v1:Service"})
	if err == nil || !strings.Contains(err.Error(), strings.Join(got, ", ")) {
		t.Errorf("List of an unknown token = %v; want an error naming the resources %v", err, got)
	}
}

// The one rule of ownership: the UID a state records holds its object; another object
// under the name, the resource's URN (unless the state records a create ID the object
// lacks); a state that records no object (a get, an import) claims any; one that
// records its object by name alone (0.6.0's lost creates) also an object this
// provider wrote that carries no URN.
func TestClaimHolds(t *testing.T) {
	t.Parallel()
	live := func(uid, createID, urn string) *unstructured.Unstructured {
		obj := &unstructured.Unstructured{Object: map[string]any{}}
		obj.SetName("web")
		obj.SetUID(types.UID(uid))
		obj.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: FieldManager}})
		if createID != "" {
			obj.SetLabels(map[string]string{CreateIDLabel: createID})
		}
		if urn != "" {
			obj.SetAnnotations(map[string]string{OwnerAnnotation: urn})
		}
		return obj
	}
	state := func(doc string) decoded { return decodedOf(t, doc) }
	const (
		recorded = `{"metadata":{"name":"web","uid":"u1","labels":{"` + CreateIDLabel + `":"c1"}}}`
		pending  = `{"metadata":{"generateName":"web-","labels":{"` + CreateIDLabel + `":"c1"}}}`
		named    = `{"metadata":{"name":"web"}}`
		uidOnly  = `{"metadata":{"name":"web","uid":"u1"}}`
	)
	unmanaged := func(obj *unstructured.Unstructured) *unstructured.Unstructured {
		obj.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl-client-side-apply"}})
		return obj
	}
	tests := []struct {
		name  string
		state string
		live  *unstructured.Unstructured
		want  bool
	}{
		{"the recorded UID", recorded, live("u1", "", ""), true},
		{"the recorded UID, its create ID removed", recorded, live("u1", "", string(sliceURN)), true},
		{"another UID, the same create ID and URN", recorded, live("u2", "c1", string(sliceURN)), true},
		{"another UID, another create ID, the same URN", recorded, live("u2", "c2", string(sliceURN)), false},
		{"another UID, the same create ID, another URN", recorded, live("u2", "c1", otherURN), true},
		{"the recorded UID gone: the resource's URN", uidOnly, live("u2", "", string(sliceURN)), true},
		{"the recorded UID gone: another stack's URN", uidOnly, live("u2", "", otherURN), false},
		{"the recorded UID gone: no URN, written by the provider", uidOnly, live("u2", "", ""), false},
		{"no UID recorded: the create ID", pending, live("u2", "c1", ""), true},
		{"no UID recorded: another create ID", pending, live("u2", "c2", string(sliceURN)), false},
		{"by name alone: the resource's URN", named, live("u2", "", string(sliceURN)), true},
		{"by name alone: another stack's URN", named, live("u2", "", otherURN), false},
		{"by name alone: no URN, written by the provider (0.6.0)", named, live("u2", "", ""), true},
		{"by name alone: no URN, written by another client", named, unmanaged(live("u2", "", "")), false},
		{"a create ID alone: no URN, written by the provider", pending, live("u2", "", ""), false},
		{"nothing recorded (get, import): any", `{}`, live("u2", "", otherURN), true},
		{"nothing there", recorded, nil, false},
	}
	for _, tt := range tests {
		if got := recordedIn(endpointSliceKind, state(tt.state)).claim(sliceURN).holds(tt.live); got != tt.want {
			t.Errorf("%s: holds = %v, want %v", tt.name, got, tt.want)
		}
	}
}
