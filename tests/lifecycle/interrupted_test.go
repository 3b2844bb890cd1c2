package lifecycle_test

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// Interrupted creates: a run that died after its creates landed but before the state
// recorded them leaves objects that carry their resource's URN. The next run's Check
// names them as before, and its Create adopts each object that carries the same URN,
// writing the inputs over it; an object of the same name that carries another URN (the
// same program's other stack, another resource) or none (another tool's) is refused
// with the import hint.

// interruptedCase is a resource whose create is interrupted: inputs gives its inputs
// for a namespace and port, uids reads the UIDs of its objects from a state.
type interruptedCase struct {
	name  string
	token string
	// inputs are the resource's inputs (before Check) in namespace ns.
	inputs func(ns string, port int) property.Map
	// uids are the object UIDs a state records.
	uids func(t *testing.T, state property.Map) []types.UID
}

var interruptedCases = []interruptedCase{
	{"named slice", spec.EndpointSliceToken, func(ns string, port int) property.Map {
		return sliceInputs(ns, "IPv4", "10.0.0.1", port).Set("metadata", property.New(obj("namespace", ns, "name", "web")))
	}, sliceUIDs},
	{"autonamed slice", spec.EndpointSliceToken, func(ns string, port int) property.Map {
		return sliceInputs(ns, "IPv4", "10.0.0.1", port)
	}, sliceUIDs},
	{"EndpointsList items", spec.EndpointsListToken, func(ns string, port int) property.Map {
		generated := obj("metadata", obj("namespace", ns, "generateName", "gen-"),
			"subsets", list(obj("addresses", list(obj("ip", "10.0.1.3")), "ports", list(obj("name", "http", "port", port)))))
		return items(endpointsItem(ns, "a", "10.0.1.1", port), endpointsItem(ns, "b", "10.0.1.2", port), generated)
	}, itemUIDs},
}

func sliceUIDs(t *testing.T, state property.Map) []types.UID {
	t.Helper()
	return []types.UID{types.UID(getString(t, state, "metadata.uid"))}
}

func itemUIDs(t *testing.T, state property.Map) []types.UID {
	t.Helper()
	var out []types.UID
	for i := range state.Get("items").AsArray().Len() {
		out = append(out, types.UID(getString(t, state, "items["+strconv.Itoa(i)+"].metadata.uid")))
	}
	return out
}

// stackURN is the URN of the resource name of type typ in the stack.
func stackURN(stack, typ, name string) resource.URN {
	return resource.NewURN(tokens.QName(stack), "lifecycle", "", tokens.Type(typ), name)
}

// createFresh checks the inputs as for a new resource (no previous state) and creates it.
func createFresh(t *testing.T, srv integration.Server, u resource.URN, inputs property.Map) (p.CreateResponse, error) {
	t.Helper()
	return srv.Create(p.CreateRequest{Urn: u, Properties: check(t, srv, u, property.Map{}, inputs)})
}

// The run after an interrupted create adopts the objects its resource made, under the
// same names, with the new inputs written: no duplicate, no orphan.
func TestInterruptedCreateIsAdopted(t *testing.T) {
	t.Parallel()
	for _, tc := range interruptedCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newProvider(t, nil, nil)
			ns := newNamespace(t)
			u := stackURN("dev", tc.token, "web")
			first, err := createFresh(t, srv, u, tc.inputs(ns, 80))
			if err != nil {
				t.Fatalf("the interrupted create: %v", err)
			}
			// The state lost the create: the next run checks and creates afresh, with a
			// changed port.
			again, err := createFresh(t, srv, u, tc.inputs(ns, 8080))
			if err != nil {
				t.Fatalf("the create after the interrupted one: %v", err)
			}
			if got, want := tc.uids(t, again.Properties), tc.uids(t, first.Properties); !slices.Equal(got, want) {
				t.Errorf("the create after the interrupted one made objects %v, want the interrupted create's %v", got, want)
			}
			if again.ID == "" || tc.token == spec.EndpointSliceToken && again.ID != first.ID {
				t.Errorf("ID %q, want the interrupted create's %q", again.ID, first.ID)
			}
			live := liveObjectsIn(t, ns)
			if len(live) != len(tc.uids(t, again.Properties)) {
				t.Errorf("the namespace holds %v; want only the adopted objects", live)
			}
			for name, port := range live {
				if port != 8080 {
					t.Errorf("%s has port %d, want the new inputs' 8080", name, port)
				}
			}
		})
	}
}

// An object of the resource's name that another stack, another resource or another
// tool made is never adopted: the create fails with the import hint, and the object is
// left as it was.
func TestCreateRefusesObjectsItDidNotMake(t *testing.T) {
	t.Parallel()
	for _, tc := range interruptedCases {
		for _, maker := range []struct {
			name string
			urn  resource.URN // "" for another tool, which does not mark its objects
		}{
			{"another stack", stackURN("prod", tc.token, "web")},
			{"another resource", stackURN("dev", tc.token, "api")},
			{"another tool", ""},
		} {
			t.Run(tc.name+", "+maker.name, func(t *testing.T) {
				t.Parallel()
				srv := newProvider(t, nil, nil)
				ns := newNamespace(t)
				u := stackURN("dev", tc.token, "web")
				checked := check(t, srv, u, property.Map{}, tc.inputs(ns, 80))
				// The other maker writes the very objects this resource would, with its own
				// mark or none.
				if _, err := srv.Create(p.CreateRequest{Urn: stackURN("tool", tc.token, "web"), Properties: checked}); err != nil {
					t.Fatalf("the other maker's create: %v", err)
				}
				remark(t, ns, maker.urn)
				before := liveObjectsIn(t, ns)
				_, err := srv.Create(p.CreateRequest{Urn: u, Properties: checked})
				if err == nil || !strings.Contains(err.Error(), "already exists (409)") ||
					!strings.Contains(err.Error(), "pulumi import") {
					t.Errorf("create over %s's object: err = %v, want the 409 with the import hint", maker.name, err)
				}
				if after := liveObjectsIn(t, ns); !maps.Equal(before, after) {
					t.Errorf("the refused create changed the namespace: %v, then %v", before, after)
				}
			})
		}
	}
}

// remark sets the OwnerAnnotation of every slice and Endpoints of the namespace to
// owner, or removes it when owner is "".
func remark(t *testing.T, ns string, owner resource.URN) {
	t.Helper()
	value := "null"
	if owner != "" {
		value = strconv.Quote(string(owner))
	}
	patch := []byte(`{"metadata":{"annotations":{"` + kube.OwnerAnnotation + `":` + value + `}}}`)
	for name := range liveObjectsIn(t, ns) {
		kind, objName, _ := strings.Cut(name, " ")
		var err error
		if kind == "EndpointSlice" {
			_, err = clientset(t).DiscoveryV1().EndpointSlices(ns).Patch(t.Context(), objName, types.MergePatchType, patch,
				metav1.PatchOptions{})
		} else {
			_, err = clientset(t).CoreV1().Endpoints(ns).Patch(t.Context(), objName, types.MergePatchType, patch,
				metav1.PatchOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// liveObjectsIn are the namespace's slices and Endpoints, by kind and name, with their
// first port.
func liveObjectsIn(t *testing.T, ns string) map[string]int32 {
	t.Helper()
	out := map[string]int32{}
	sl, err := clientset(t).DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sl.Items {
		out["EndpointSlice "+s.Name] = *s.Ports[0].Port
	}
	endpoints, err := clientset(t).CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range endpoints.Items {
		out["Endpoints "+e.Name] = e.Subsets[0].Ports[0].Port
	}
	return out
}

// An interrupted create's object whose immutable field the program has changed since
// cannot be adopted as it is: the create says to delete it and run up again.
func TestInterruptedCreateWithAnImmutableChange(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	u := stackURN("dev", spec.EndpointSliceToken, "web")
	if _, err := createFresh(t, srv, u, sliceInputs(ns, "IPv4", "10.0.0.1", 80)); err != nil {
		t.Fatalf("the interrupted create: %v", err)
	}
	_, err := createFresh(t, srv, u, sliceInputs(ns, "IPv6", "fd00::1", 80))
	if err == nil || !strings.Contains(err.Error(), "field is immutable") ||
		!strings.Contains(err.Error(), "kubectl delete endpointslice -n "+ns) {
		t.Errorf("adopting an object whose addressType differs: err = %v; want the 422 and the way out", err)
	}
}

// A replacement is never taken for an interrupted create: the engine checks it again
// without the previous inputs, and it still gets a name of its own; created under the
// name of the object it replaces (a targeted `--replace` keeps the inputs), it meets
// that object, which the state records, and is refused rather than adopting it.
func TestReplacementIsNotAnInterruptedCreate(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	u := stackURN("dev", spec.EndpointSliceToken, "web")
	created, err := createFresh(t, srv, u, sliceInputs(ns, "IPv4", "10.0.0.1", 80))
	if err != nil {
		t.Fatal(err)
	}
	olds := check(t, srv, u, property.Map{}, sliceInputs(ns, "IPv4", "10.0.0.1", 80))
	withOlds := check(t, srv, u, olds, sliceInputs(ns, "IPv6", "fd00::1", 80))
	again := check(t, srv, u, property.Map{}, sliceInputs(ns, "IPv6", "fd00::1", 80))
	oldName := getString(t, olds, "metadata.name")
	if got := getString(t, again, "metadata.name"); got == oldName || got != getString(t, withOlds, "metadata.name") {
		t.Errorf("the replacement checked again is named %q; want %q, the name the check with the previous "+
			"inputs gave, not the replaced object's %q", got, getString(t, withOlds, "metadata.name"), oldName)
	}
	kept := check(t, srv, u, olds, sliceInputs(ns, "IPv4", "10.0.0.1", 80))
	refused, err := srv.Create(p.CreateRequest{Urn: u, Properties: kept})
	if refused.ID != "" || refused.PartialState != nil {
		t.Errorf("the refused replacement recorded %q %+v; want nothing: the server answered 409", refused.ID,
			refused.PartialState)
	}
	if err == nil || !strings.Contains(err.Error(), "already exists (409): it is this resource's own object") ||
		!strings.Contains(err.Error(), "deleteBeforeReplace") || strings.Contains(err.Error(), "pulumi import") {
		t.Errorf("a replacement under the replaced object's name: err = %v, want the 409 naming the recorded "+
			"object as this resource's own and deleteBeforeReplace as the way out (not an import)", err)
	}
	if live := liveObjectsIn(t, ns); len(live) != 1 || live["EndpointSlice "+oldName] != 80 {
		t.Errorf("the namespace holds %v, want the replaced slice alone, as it was (uid %s)", live,
			getString(t, created.Properties, "metadata.uid"))
	}
}
