package kube

import (
	"net/http"
	"slices"
	"strconv"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// sliceAt is the inputs of the slice ns/web (meta: its metadata's JSON) serving port.
func sliceAt(t *testing.T, meta string, port int) property.Map {
	t.Helper()
	return inputsOf(t, `{"metadata":`+meta+`,"addressType":"IPv4",`+
		`"endpoints":[{"addresses":["10.0.0.2"]}],"ports":[{"name":"http","port":`+strconv.Itoa(port)+`,"protocol":"TCP"}]}`)
}

// listAt is the inputs of a list of the one item ns/web serving port.
func listAt(t *testing.T, port int) property.Map {
	t.Helper()
	return inputsOf(t, `{"items":[{"metadata":{"name":"web","namespace":"ns"},`+
		`"subsets":[{"addresses":[{"ip":"10.0.0.2"}],"ports":[{"port":`+strconv.Itoa(port)+`}]}]}]}`)
}

// lifecycleCase is a resource kind in the tests of lost answers.
type lifecycleCase struct {
	name       string
	urn        resource.URN
	collection string
	r          func(*Kubernetes) Lifecycle
	at         func(t *testing.T, port int) property.Map
}

var lifecycleCases = []lifecycleCase{
	{"slice", sliceURN, slicesPath, (*Kubernetes).EndpointSlice,
		func(t *testing.T, port int) property.Map { return sliceAt(t, `{"name":"web","namespace":"ns"}`, port) }},
	{"list item", listURN, itemsPath, (*Kubernetes).EndpointsList, listAt},
}

// dropPosts loses the answer of every create.
func dropPosts(method, _ string) string {
	if method == http.MethodPost {
		return "drop"
	}
	return ""
}

// An update that finds its object deleted by another client creates it again; when
// that create's answer is lost, the update answers partial state that records the
// create, not the object that is gone: the next update writes what the create made
// (no 409, no second object), and destroy deletes it. A destroy with the state of
// before (the UID of the object that is gone) deletes it too: it carries the
// resource's URN.
func TestUpdateRecordsItsLostCreate(t *testing.T) {
	t.Parallel()
	for _, tc := range lifecycleCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, c := startCluster(t)
			r := tc.r(kubernetesWith(t, Config{}, c))
			ctx := t.Context()
			created, err := r.Create(ctx, p.CreateRequest{Urn: tc.urn, Properties: tc.at(t, 80)})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			f.remove(tc.collection, "web") // another client deletes it
			if _, err := r.Check(ctx, p.CheckRequest{Urn: tc.urn, State: tc.at(t, 80), Inputs: tc.at(t, 81)}); err != nil {
				t.Fatal(err)
			}
			f.fault(dropPosts)
			lost, err := r.Update(ctx, p.UpdateRequest{ID: created.ID, Urn: tc.urn, State: created.Properties,
				OldInputs: tc.at(t, 80), Inputs: tc.at(t, 81)})
			f.fault(nil)
			if err == nil || lost.PartialState == nil {
				t.Fatalf("update whose create went unanswered = %v, partial state %v; want an error with partial state",
					err, lost.PartialState)
			}
			if gone := uidsIn(created.Properties); slices.Contains(uidsIn(lost.Properties), gone[0]) {
				t.Errorf("the partial state records %s, the UID of the object that is gone", gone[0])
			}
			made := f.list(tc.collection)
			if len(made) != 1 {
				t.Fatalf("%d objects after the lost create, want 1", len(made))
			}
			// The engine records the partial state; `pulumi up` runs again.
			if _, err := r.Check(ctx, p.CheckRequest{Urn: tc.urn, State: tc.at(t, 81), Inputs: tc.at(t, 81)}); err != nil {
				t.Fatal(err)
			}
			again, err := r.Update(ctx, p.UpdateRequest{ID: created.ID, Urn: tc.urn, State: lost.Properties,
				OldInputs: tc.at(t, 81), Inputs: tc.at(t, 81)})
			if err != nil {
				t.Fatalf("the next update: %v", err)
			}
			live := f.list(tc.collection)
			if len(live) != 1 || live[0].GetUID() != made[0].GetUID() || f.posts != 2 {
				t.Fatalf("after the next update: %d objects, %d creates; want the one the lost create made", len(live), f.posts)
			}
			if got := uidsIn(again.Properties); len(got) != 1 || got[0] != string(made[0].GetUID()) {
				t.Errorf("the state records UIDs %v, want %s", got, made[0].GetUID())
			}
			if err := r.Delete(ctx, p.DeleteRequest{ID: created.ID, Urn: tc.urn, Properties: created.Properties}); err != nil {
				t.Fatalf("destroy with the state of before: %v", err)
			}
			if left := f.list(tc.collection); len(left) != 0 {
				t.Errorf("destroy left %s, which this resource's create made", idOf(left[0]))
			}
		})
	}
}

// uidsIn lists the UIDs a slice's or a list's state records.
func uidsIn(state property.Map) []string {
	d := decode(state)
	var uids []string
	for _, it := range append(recordedItems(d), listItem{output: d}) {
		if uid := it.recorded(endpointSliceKind).uid(); uid != "" {
			uids = append(uids, string(uid))
		}
	}
	return uids
}

// A create whose name the server generates and that kube-apiserver answers 504 with
// Retry-After after storing the object (or whose answer is lost) is sent once: the
// object is found by its create ID, and the create answers it. client-go sent it
// again, and made a second slice that nothing recorded.
func TestServerNamedCreateIsSentOnce(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"504", "drop"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			f, c := startCluster(t)
			r := kubernetesWith(t, Config{}, c).EndpointSlice()
			once := 0
			f.fault(func(method, _ string) string {
				if method == http.MethodPost && once == 0 {
					once++
					return fault
				}
				return ""
			})
			resp, err := r.Create(t.Context(), p.CreateRequest{Urn: sliceURN,
				Properties: sliceAt(t, `{"generateName":"web-","namespace":"ns"}`, 80)})
			live := f.list(slicesPath)
			if err != nil || len(live) != 1 || f.posts != 1 {
				t.Fatalf("create = %v; %d slices after %d creates sent, want 1 slice, 1 create and no error",
					err, len(live), f.posts)
			}
			if resp.ID != idOf(live[0]).String() || resp.PartialState != nil {
				t.Errorf("create ID %q (partial state %v), want %s", resp.ID, resp.PartialState, idOf(live[0]))
			}
			if got := uidsIn(resp.Properties); len(got) != 1 || got[0] != string(live[0].GetUID()) {
				t.Errorf("the state records UIDs %v, want %s", got, live[0].GetUID())
			}
		})
	}
}

// A state that version 0.6.0 wrote for an object whose create (or list item write)
// went unanswered records no UID, and the object carries no URN: the object under its
// name that this provider wrote is still the resource's, once, for a refresh (which
// records its UID), an update (which writes it, marking it) and a destroy (which
// deletes it). An object there that another client wrote is not.
func TestStateOf060WithoutUID(t *testing.T) {
	t.Parallel()
	for _, tc := range lifecycleCases {
		for _, manager := range []string{FieldManager, "kubectl-client-side-apply"} {
			t.Run(tc.name+", written by "+manager, func(t *testing.T) {
				t.Parallel()
				ours := manager == FieldManager
				start := func(t *testing.T) (*fakeCluster, Lifecycle, *unstructured.Unstructured) {
					f, c := startCluster(t)
					obj := kindOf(tc).object(map[string]any{"metadata": map[string]any{"name": "web", "namespace": "ns"}})
					obj.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: manager}})
					return f, tc.r(kubernetesWith(t, Config{}, c)), f.put(tc.collection, obj.Object)
				}
				id, state := "ns/web", tc.at(t, 80)
				if tc.collection == itemsPath {
					id = "web-list"
				}
				t.Run("refresh", func(t *testing.T) {
					t.Parallel()
					_, r, live := start(t)
					read, err := r.Read(t.Context(), p.ReadRequest{ID: id, Urn: tc.urn, Properties: state, Inputs: state})
					kept := err == nil && read.ID == id && len(uidsIn(read.Properties)) == 1 &&
						uidsIn(read.Properties)[0] == string(live.GetUID())
					if kept != ours {
						t.Errorf("refresh = %q, %v, UIDs %v; want the object kept and its UID recorded: %v",
							read.ID, err, uidsIn(read.Properties), ours)
					}
				})
				t.Run("update", func(t *testing.T) {
					t.Parallel()
					f, r, live := start(t)
					_, err := r.Update(t.Context(), p.UpdateRequest{ID: id, Urn: tc.urn, State: state, OldInputs: state,
						Inputs: tc.at(t, 81)})
					now := f.list(tc.collection)
					written := err == nil && f.posts == 0 && len(now) == 1 && now[0].GetUID() == live.GetUID() &&
						now[0].GetAnnotations()[OwnerAnnotation] == string(tc.urn)
					if written != ours {
						t.Errorf("update = %v after %d creates; want the object written in place and marked: %v",
							err, f.posts, ours)
					}
				})
				t.Run("destroy", func(t *testing.T) {
					t.Parallel()
					f, r, _ := start(t)
					err := r.Delete(t.Context(), p.DeleteRequest{ID: id, Urn: tc.urn, Properties: state})
					if deleted := err == nil && len(f.list(tc.collection)) == 0; deleted != ours {
						t.Errorf("destroy = %v, %d objects left; want the object deleted: %v", err,
							len(f.list(tc.collection)), ours)
					}
				})
			})
		}
	}
}

// kindOf is the kind of object a case writes.
func kindOf(tc lifecycleCase) kind {
	if tc.collection == itemsPath {
		return endpointsKind
	}
	return endpointSliceKind
}
