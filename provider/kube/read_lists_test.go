package kube

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
)

// readsCluster is a fake cluster with n slices in namespace "apps" (s0 ... s<n-1>),
// and the client to read them with.
func readsCluster(t *testing.T, n int) (kindClient, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	objs := make([]runtime.Object, 0, n)
	for i := range n {
		objs = append(objs, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
			"metadata":    map[string]any{"name": fmt.Sprintf("s%d", i), "namespace": "apps", "uid": fmt.Sprintf("u%d", i)},
			"addressType": "IPv4",
		}})
	}
	fake := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{endpointSliceKind.resource: "EndpointSliceList"}, objs...)
	return kindClient{kind: endpointSliceKind, client: &Client{Dynamic: fake, Namespace: "apps"}}, fake
}

// verbs counts the fake's requests by verb. The fake records no list's limit, so the
// probe of a namespace's size counts as a list.
func verbs(fake *dynamicfake.FakeDynamicClient) map[string]int {
	out := map[string]int{}
	for _, a := range fake.Actions() {
		out[a.GetVerb()]++
	}
	return out
}

func readAll(t *testing.T, o kindClient, names ...string) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	for _, name := range names {
		obj, err := o.read(t.Context(), objectID{namespace: "apps", name: name})
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		out[name] = obj
	}
	return out
}

func sliceNames(from, to int) []string {
	var names []string
	for i := from; i < to; i++ {
		names = append(names, fmt.Sprintf("s%d", i))
	}
	return names
}

func TestReadsShareListsOfTheNamespace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		slices int // in the namespace
		reads  int
		want   map[string]int
	}{
		{"a lone Read is one GET", 200, 1, map[string]int{"get": 1}},
		{"seven Reads are seven GETs", 200, 7, map[string]int{"get": 7}},
		// 200 objects: a list once 10 Reads are seen (one per 20 objects).
		{"200 Reads of 200 slices", 200, 200, map[string]int{"get": 9, "list": 2}},
		{"20 Reads of 100 slices", 100, 20, map[string]int{"get": 7, "list": 2}},
		// 1000 objects: 50 Reads before a list pays; 30 never do.
		{"30 Reads of 1000 slices: GETs", 1000, 30, map[string]int{"get": 30, "list": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, fake := readsCluster(t, tt.slices)
			got := readAll(t, o, sliceNames(0, tt.reads)...)
			for name, obj := range got {
				if obj == nil || obj.GetName() != name {
					t.Fatalf("read %s = %v", name, obj)
				}
			}
			if d := fmt.Sprint(verbs(fake)); d != fmt.Sprint(tt.want) {
				t.Errorf("requests = %v, want %v", d, tt.want)
			}
		})
	}
}

func TestReadsFromAListAnswerAsAGet(t *testing.T) {
	t.Parallel()
	o, fake := readsCluster(t, 20)
	readAll(t, o, sliceNames(0, 10)...) // listed at the 8th
	if err := fake.Resource(endpointSliceKind.resource).Namespace("apps").Delete(t.Context(), "s15", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The list was taken before the delete by another client: within listFresh it
	// still answers (a GET at the time of the list would have too); a name it does
	// not hold is gone.
	got := readAll(t, o, "s15", "nothing")
	if got["s15"] == nil || got["nothing"] != nil {
		t.Errorf("from the list: s15 = %v, nothing = %v; want s15, and nothing gone", got["s15"], got["nothing"])
	}
	// The list is kept no longer than listFresh: the next Read lists again, and s15
	// is gone.
	o.client.reads.mu.Lock()
	r := o.client.reads.of(o.readsKey("apps"))
	r.taken = r.taken.Add(-listFresh)
	o.client.reads.mu.Unlock()
	before := verbs(fake)["list"]
	if got := readAll(t, o, "s15"); got["s15"] != nil {
		t.Errorf("s15, deleted, read from a list taken since = %v, want gone", got["s15"])
	}
	if lists := verbs(fake)["list"] - before; lists != 1 {
		t.Errorf("lists after listFresh = %d, want 1", lists)
	}

	// A write of this process drops the list and starts the count again: the Reads
	// after it are GETs until listMin are seen.
	o.wrote("apps")
	before = verbs(fake)["get"]
	got = readAll(t, o, "s1", "s2")
	if gets := verbs(fake)["get"] - before; gets != 2 || got["s1"] == nil {
		t.Errorf("GETs of 2 Reads after a write = %d (s1 = %v), want 2", gets, got["s1"])
	}
	// An object the list returns is the Read's own: changing it changes no other.
	a := readAll(t, o, sliceNames(0, 10)...)["s9"]
	a.SetName("changed")
	if b := readAll(t, o, "s9")["s9"]; b.GetName() != "s9" {
		t.Errorf("a Read's object is shared with another's: %s", b.GetName())
	}
}

func TestReadsWithoutListFallBackToGets(t *testing.T) {
	t.Parallel()
	o, fake := readsCluster(t, 30)
	fake.PrependReactor("list", "endpointslices", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(endpointSliceKind.resource.GroupResource(), "", fmt.Errorf("no list"))
	})
	got := readAll(t, o, append(sliceNames(0, 30), "nothing")...)
	for _, name := range sliceNames(0, 30) {
		if got[name] == nil {
			t.Errorf("read %s: gone, want it", name)
		}
	}
	if got["nothing"] != nil {
		t.Errorf("read nothing = %v, want gone", got["nothing"])
	}
	// One list tried (the probe, forbidden), then GETs for good.
	if d, want := fmt.Sprint(verbs(fake)), fmt.Sprint(map[string]int{"get": 31, "list": 1}); d != want {
		t.Errorf("requests = %v, want %v", d, want)
	}
}

// Reads that arrive together while a list is under way wait for it: one list answers
// them all.
func TestConcurrentReadsWaitForOneList(t *testing.T) {
	t.Parallel()
	o, fake := readsCluster(t, 100)
	// The fake holds its lock while a reactor runs: the other Reads' requests wait
	// with the probe, as those that wait for the list do.
	listing, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	fake.PrependReactor("list", "endpointslices", func(k8stesting.Action) (bool, runtime.Object, error) {
		once.Do(func() { close(listing) })
		<-release
		return false, nil, nil
	})
	readAll(t, o, sliceNames(0, 4)...)
	var wg sync.WaitGroup
	errs := make(chan error, 96)
	for _, name := range sliceNames(4, 100) {
		wg.Go(func() {
			obj, err := o.read(context.WithoutCancel(t.Context()), objectID{namespace: "apps", name: name})
			if err == nil && (obj == nil || obj.GetName() != name) {
				err = fmt.Errorf("read %s = %v", name, obj)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	// Let the Reads pile up behind the list, then let it answer.
	<-listing
	time.Sleep(10 * time.Millisecond)
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if lists := verbs(fake)["list"]; lists != 2 {
		t.Errorf("lists = %d, want 2, the probe and one list (requests %v)", lists, verbs(fake))
	}
}
