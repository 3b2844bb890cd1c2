package lifecycle_test

import (
	"net/http"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/apiproxy"
)

// Lost answers against the API server: what a write whose answer never came made is
// recorded, found and deleted, never made twice, and a state 0.6.0 wrote for such a
// write is still the resource's.

// lostCase is a resource of one object named web in a namespace: its inputs for a
// port, where its creates go, how another client deletes or writes its object, and
// the UIDs a state records.
type lostCase struct {
	name   string
	token  string
	kind   string
	inputs func(ns string, port int) property.Map
	// collection is the URL path of the creates of the namespace's objects.
	collection func(ns string) string
	// remove deletes the object as another client would.
	remove func(t *testing.T, ns string)
	// put creates the object as version 0.6.0 did: written by the provider, no URN.
	put  func(t *testing.T, ns string) types.UID
	uids func(t *testing.T, state property.Map) []types.UID
}

var lostCases = []lostCase{
	{
		name: "slice", token: spec.EndpointSliceToken, kind: "EndpointSlice",
		inputs: func(ns string, port int) property.Map {
			return sliceInputs(ns, "IPv4", "10.0.0.1", port).Set("metadata", property.New(obj("namespace", ns, "name", "web")))
		},
		collection: func(ns string) string { return "/apis/discovery.k8s.io/v1/namespaces/" + ns + "/endpointslices" },
		remove: func(t *testing.T, ns string) {
			t.Helper()
			if err := clientset(t).DiscoveryV1().EndpointSlices(ns).Delete(t.Context(), "web", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		},
		put: func(t *testing.T, ns string) types.UID {
			t.Helper()
			port := int32(80)
			s, err := clientset(t).DiscoveryV1().EndpointSlices(ns).Create(t.Context(), &discoveryv1.EndpointSlice{
				ObjectMeta:  metav1.ObjectMeta{Name: "web", Namespace: ns},
				AddressType: discoveryv1.AddressTypeIPv4,
				Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}},
				Ports:       []discoveryv1.EndpointPort{{Port: &port}},
			}, metav1.CreateOptions{FieldManager: kube.FieldManager})
			if err != nil {
				t.Fatal(err)
			}
			return s.UID
		},
		uids: sliceUIDs,
	},
	{
		name: "list item", token: spec.EndpointsListToken, kind: "Endpoints",
		inputs: func(ns string, port int) property.Map {
			return items(endpointsItem(ns, "web", "10.0.1.1", port))
		},
		collection: func(ns string) string { return "/api/v1/namespaces/" + ns + "/endpoints" },
		remove: func(t *testing.T, ns string) {
			t.Helper()
			if err := clientset(t).CoreV1().Endpoints(ns).Delete(t.Context(), "web", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		},
		put: func(t *testing.T, ns string) types.UID {
			t.Helper()
			//nolint:staticcheck // v1 Endpoints are what an EndpointsList writes
			e, err := clientset(t).CoreV1().Endpoints(ns).Create(t.Context(), &corev1.Endpoints{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
				Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.0.1.1"}},
					Ports: []corev1.EndpointPort{{Port: 80}}}},
			}, metav1.CreateOptions{FieldManager: kube.FieldManager})
			if err != nil {
				t.Fatal(err)
			}
			return e.UID
		},
		uids: itemUIDs,
	},
}

// onlyUID fails the test unless the namespace holds one object of the case, of the
// UID want, and the state records it.
func onlyUID(t *testing.T, ns string, tc lostCase, state property.Map, want types.UID, when string) {
	t.Helper()
	live := liveUIDs(t, ns)
	if len(live) != 1 || live[0] != want {
		t.Errorf("%s: the namespace holds %v, want the one object %s", when, live, want)
	}
	if got := tc.uids(t, state); len(got) != 1 || got[0] != want {
		t.Errorf("%s: the state records %v, want %s", when, got, want)
	}
}

// liveUIDs lists the UIDs of the slices and Endpoints of the namespace.
func liveUIDs(t *testing.T, ns string) []types.UID {
	t.Helper()
	var out []types.UID
	sl, err := clientset(t).DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sl.Items {
		out = append(out, s.UID)
	}
	//nolint:staticcheck // v1 Endpoints are what an EndpointsList writes
	endpoints, err := clientset(t).CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range endpoints.Items {
		out = append(out, e.UID)
	}
	return out
}

// An update that finds its object deleted by another client creates it again; the
// answer to that create is lost. The update answers partial state that records the
// create, so the next update writes what it made (no 409, no second object); and a
// destroy, even from the state of before (the UID of the object that is gone), deletes
// it, as it carries the resource's URN.
func TestUpdatesLostCreateIsRecorded(t *testing.T) {
	t.Parallel()
	for _, tc := range lostCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := newNamespace(t)
			srv := newProvider(t, nil, nil)
			px, lossy := newProxiedProvider(t)
			u := urn(tc.token, "lost-update")
			olds := check(t, srv, u, property.Map{}, tc.inputs(ns, 80))
			created, err := srv.Create(p.CreateRequest{Urn: u, Properties: olds})
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			tc.remove(t, ns)
			px.DropAnswers(&apiproxy.Rule{Method: http.MethodPost, PathPrefix: tc.collection(ns), Times: 1})
			news := check(t, lossy, u, olds, tc.inputs(ns, 81))
			lost, err := lossy.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: created.Properties,
				OldInputs: olds, Inputs: news})
			if err == nil || lost.PartialState == nil {
				t.Fatalf("the update whose create went unanswered = %v, partial state %v; want an error with "+
					"partial state", err, lost.PartialState)
			}
			made := liveUIDs(t, ns)
			if len(made) != 1 {
				t.Fatalf("the lost create made %v, want one object", made)
			}
			again, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: lost.Properties,
				OldInputs: check(t, srv, u, news, news), Inputs: news})
			if err != nil {
				t.Fatalf("the next update: %v", err)
			}
			onlyUID(t, ns, tc, again.Properties, made[0], "after the next update")
			if err := srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: created.Properties}); err != nil {
				t.Fatalf("destroy from the state of before: %v", err)
			}
			if left := liveUIDs(t, ns); len(left) != 0 {
				t.Errorf("destroy left %v, which the resource's create made", left)
			}
		})
	}
}

// A create whose name the server generates, answered 504 with Retry-After after it was
// stored (kube-apiserver's answer when etcd commits after its timeout), is sent once:
// the create finds its slice by its create ID and records it; no second slice.
func TestServerNamedCreateAnswered504IsSentOnce(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	px, srv := newProxiedProvider(t)
	collection := "/apis/discovery.k8s.io/v1/namespaces/" + ns + "/endpointslices"
	px.DropAnswers(&apiproxy.Rule{Method: http.MethodPost, PathPrefix: collection, Times: 1,
		Answer: http.StatusGatewayTimeout})
	u := urn(spec.EndpointSliceToken, "generated-504")
	inputs := sliceInputs(ns, "IPv4", "10.0.0.1", 80).Set("metadata",
		property.New(obj("namespace", ns, "generateName", "web-")))
	created, err := createFresh(t, srv, u, inputs)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	posts := 0
	for _, r := range px.Requests() {
		if r.Method == http.MethodPost && r.Path == collection {
			posts++
		}
	}
	live := liveUIDs(t, ns)
	if posts != 1 || len(live) != 1 {
		t.Fatalf("%d creates sent, %d slices made; want one of each", posts, len(live))
	}
	sl, err := clientset(t).DiscoveryV1().EndpointSlices(ns).Get(t.Context(), getString(t, created.Properties,
		"metadata.name"), metav1.GetOptions{})
	if err != nil || sl.UID != live[0] || created.ID != ns+"/"+sl.Name {
		t.Errorf("the create recorded %q (%v); want the slice it made, %s", created.ID, err, live[0])
	}
}

// A state that version 0.6.0 wrote for a create (or a list item write) whose answer
// was lost records no UID, and its object carries no URN: the object this provider
// wrote under its name is still the resource's, once. A refresh keeps it and records
// its UID, an update writes it in place (and marks it with the URN), and a destroy
// deletes it.
func TestStateOf060WithoutUID(t *testing.T) {
	t.Parallel()
	for _, tc := range lostCases {
		for _, op := range []string{"refresh", "update", "destroy"} {
			t.Run(tc.name+", "+op, func(t *testing.T) {
				t.Parallel()
				ns := newNamespace(t)
				srv := newProvider(t, nil, nil)
				u := urn(tc.token, "from-060")
				uid := tc.put(t, ns)
				state := check(t, srv, u, property.Map{}, tc.inputs(ns, 80))
				id := ns + "/web"
				if tc.token == spec.EndpointsListToken {
					id = "from-060-1a2b3c4d"
				}
				upgraded(t, srv, tc, op, ns, u, id, state, uid)
			})
		}
	}
}

// upgraded runs op on the 0.6.0 state of TestStateOf060WithoutUID and checks it.
func upgraded(t *testing.T, srv integration.Server, tc lostCase, op, ns string, u resource.URN, id string,
	state property.Map, uid types.UID,
) {
	t.Helper()
	switch op {
	case "refresh":
		read, err := srv.Read(p.ReadRequest{ID: id, Urn: u, Properties: state, Inputs: state})
		if err != nil || read.ID != id {
			t.Fatalf("refresh = %q, %v; want the object kept", read.ID, err)
		}
		onlyUID(t, ns, tc, read.Properties, uid, "after the refresh")
	case "update":
		updated, err := srv.Update(p.UpdateRequest{ID: id, Urn: u, State: state, OldInputs: state,
			Inputs: tc.inputs(ns, 81)})
		if err != nil {
			t.Fatalf("update: %v", err)
		}
		onlyUID(t, ns, tc, updated.Properties, uid, "after the update")
		if live := liveObjectsIn(t, ns); len(live) != 1 || live[tc.kind+" web"] != 81 {
			t.Errorf("the namespace holds %v after the update; want %s web with port 81", live, tc.kind)
		}
	case "destroy":
		if err := srv.Delete(p.DeleteRequest{ID: id, Urn: u, Properties: state}); err != nil {
			t.Fatalf("destroy: %v", err)
		}
		if left := liveUIDs(t, ns); len(left) != 0 {
			t.Errorf("destroy left %v", left)
		}
	}
}
