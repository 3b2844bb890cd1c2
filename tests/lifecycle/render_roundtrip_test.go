package lifecycle_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// objectStore is where a round trip's objects are: the cluster, or the directory a
// render-mode provider writes. Its getters answer a NotFound API error for an object
// that is not there.
type objectStore interface {
	fmt.Stringer
	slice(ctx context.Context, namespace, name string) (*discoveryv1.EndpointSlice, error)
	updateSlice(ctx context.Context, s *discoveryv1.EndpointSlice) error
	endpoints(ctx context.Context, namespace, name string) (*corev1.Endpoints, error)
	updateEndpoints(ctx context.Context, e *corev1.Endpoints) error
	deleteEndpoints(ctx context.Context, namespace, name string) error
	// provider is a provider, configured with config's settings besides its own,
	// whose objects go to the store.
	provider(t *testing.T, config map[string]property.Value) integration.Server
	// keep prepares the store for an EndpointsList item that an edit may delete.
	keep(ctx context.Context, k objectKey) error
	// deletable tells whether an edit may delete the item.
	deletable(k objectKey) bool
	// fingerprint is what must stay the same when the provider writes nothing.
	fingerprint(rt *roundTrip) string
	// verify checks what the store holds beyond what the program means.
	verify(rt *roundTrip, step string)
}

// clusterStore is the cluster, through client-go; edits are updates by another field
// manager.
type clusterStore struct{ cs kubernetes.Interface }

func (clusterStore) String() string { return "the cluster" }

func (c clusterStore) slice(ctx context.Context, namespace, name string) (*discoveryv1.EndpointSlice, error) {
	return c.cs.DiscoveryV1().EndpointSlices(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (c clusterStore) updateSlice(ctx context.Context, s *discoveryv1.EndpointSlice) error {
	_, err := c.cs.DiscoveryV1().EndpointSlices(s.Namespace).Update(ctx, s, metav1.UpdateOptions{FieldManager: "roundtrip-drift"})
	return err
}

func (c clusterStore) endpoints(ctx context.Context, namespace, name string) (*corev1.Endpoints, error) {
	return c.cs.CoreV1().Endpoints(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (c clusterStore) updateEndpoints(ctx context.Context, e *corev1.Endpoints) error {
	_, err := c.cs.CoreV1().Endpoints(e.Namespace).Update(ctx, e, metav1.UpdateOptions{FieldManager: "roundtrip-drift"})
	return err
}

func (c clusterStore) deleteEndpoints(ctx context.Context, namespace, name string) error {
	return c.cs.CoreV1().Endpoints(namespace).Delete(ctx, name, metav1.DeleteOptions{})
}

func (clusterStore) provider(t *testing.T, config map[string]property.Value) integration.Server {
	return newProvider(t, nil, config)
}

// keep gives an item that can have a Service the selectorless Service its Endpoints
// belong to, as in a real cluster: the endpoints controller deletes Endpoints of no
// Service once Endpoints of their name are deleted, as the drift edits do (and then
// also the item the next Update writes again), so only items with a Service are
// deleted out of band.
func (c clusterStore) keep(ctx context.Context, k objectKey) error {
	if !c.deletable(k) {
		return nil
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: k.name, Namespace: k.namespace},
		// Headless: hundreds of programs would fill the test cluster's Service IP range.
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}},
	}
	_, err := c.cs.CoreV1().Services(k.namespace).Create(ctx, svc, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create the selectorless Service %s: %w", k, err)
	}
	return nil
}

// deletable: the item's name can be a Service's (a DNS-1035 label; an Endpoints name
// may be any DNS subdomain).
func (clusterStore) deletable(k objectKey) bool { return len(validation.IsDNS1035Label(k.name)) == 0 }

// fingerprint is empty: an Update may write the same object again, which the server
// may or may not count as a change.
func (clusterStore) fingerprint(*roundTrip) string { return "" }

func (clusterStore) verify(*roundTrip, string) {}

// dirStore is a render directory; edits are hand edits of the manifests.
type dirStore struct {
	dir string
	dyn dynamic.Interface // the API server that judges the manifests
}

func (d dirStore) String() string { return "the render directory " + d.dir }

var (
	sliceGVR     = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
	endpointsGVR = schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}
)

// file is the manifest of an object, named as docs/guides/render.md says: a name too long for a
// 255-byte file name keeps its start, then '~' and 16 hexadecimal digits of its
// SHA-256.
func (d dirStore) file(gvr schema.GroupVersionResource, kind, namespace, name string) string {
	prefix := fmt.Sprintf("%s-%s-%s-", strings.ReplaceAll(gvr.GroupVersion().String(), "/", "_"), kind, namespace)
	if len(prefix)+len(name)+len(".yaml") > 255 {
		sum := sha256.Sum256([]byte(name))
		name = name[:255-len(prefix)-17-len(".yaml")] + "~" + hex.EncodeToString(sum[:8])
	}
	return filepath.Join(d.dir, prefix+name+".yaml")
}

// read decodes a manifest strictly: a field the kind does not have is an error.
func (d dirStore) read(gvr schema.GroupVersionResource, kind, namespace, name string, into any) error {
	data, err := os.ReadFile(d.file(gvr, kind, namespace, name))
	if errors.Is(err, fs.ErrNotExist) {
		return apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	if err != nil {
		return err
	}
	return yaml.UnmarshalStrict(data, into)
}

// write writes a manifest as a person would edit it: the object's fields, without
// the empty creationTimestamp that encoding a typed object adds.
func (d dirStore) write(gvr schema.GroupVersionResource, kind string, obj runtime.Object) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	u := unstructured.Unstructured{Object: m}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	data, err := yaml.Marshal(u.Object)
	if err != nil {
		return err
	}
	return os.WriteFile(d.file(gvr, kind, u.GetNamespace(), u.GetName()), data, 0o600)
}

func (d dirStore) slice(_ context.Context, namespace, name string) (*discoveryv1.EndpointSlice, error) {
	var s discoveryv1.EndpointSlice
	if err := d.read(sliceGVR, "EndpointSlice", namespace, name, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func (d dirStore) updateSlice(_ context.Context, s *discoveryv1.EndpointSlice) error {
	return d.write(sliceGVR, "EndpointSlice", s)
}

func (d dirStore) endpoints(_ context.Context, namespace, name string) (*corev1.Endpoints, error) {
	var e corev1.Endpoints
	if err := d.read(endpointsGVR, "Endpoints", namespace, name, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

func (d dirStore) updateEndpoints(_ context.Context, e *corev1.Endpoints) error {
	return d.write(endpointsGVR, "Endpoints", e)
}

func (d dirStore) deleteEndpoints(_ context.Context, namespace, name string) error {
	return os.Remove(d.file(endpointsGVR, "Endpoints", namespace, name))
}

func (d dirStore) provider(t *testing.T, config map[string]property.Value) integration.Server {
	return renderProvider(t, d.dir, config)
}

func (dirStore) keep(context.Context, objectKey) error { return nil }

func (dirStore) deletable(objectKey) bool { return true }

// manifests are the directory's files and their bytes.
func (d dirStore) manifests(rt *roundTrip) map[string][]byte {
	rt.t.Helper()
	entries, err := os.ReadDir(d.dir)
	if err != nil {
		rt.fatalf("read the render directory: %v", err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(d.dir, e.Name()))
		if err != nil {
			rt.fatalf("read the manifest %s: %v", e.Name(), err)
		}
		out[e.Name()] = data
	}
	return out
}

// fingerprint is each file's name, modification time and bytes.
func (d dirStore) fingerprint(rt *roundTrip) string {
	rt.t.Helper()
	var parts []string
	files := d.manifests(rt)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		info, err := os.Stat(filepath.Join(d.dir, name))
		if err != nil {
			rt.fatalf("stat the manifest %s: %v", name, err)
		}
		data := files[name]
		parts = append(parts, fmt.Sprintf("%s (%s):\n%s", name, info.ModTime().Format(time.RFC3339Nano), data))
	}
	return strings.Join(parts, "\n")
}

// verify: the directory holds a manifest for each of the program's objects and no
// other file, and each manifest, created on the API server as a dry run with strict
// field validation, is accepted and stored as it is written (in canonical form).
func (d dirStore) verify(rt *roundTrip, step string) {
	rt.t.Helper()
	files := d.manifests(rt)
	if want := d.programFiles(rt); !slices.Equal(slices.Sorted(maps.Keys(files)), want) {
		rt.errorf("%s: the render directory holds %v, want %v", step, slices.Sorted(maps.Keys(files)), want)
	}
	for name, data := range files {
		var obj unstructured.Unstructured
		if err := yaml.Unmarshal(data, &obj.Object); err != nil {
			rt.fatalf("%s: the manifest %s: %v", step, name, err)
		}
		gvr, form := endpointsGVR, validate.EndpointsForm
		if obj.GetKind() == "EndpointSlice" {
			gvr, form = sliceGVR, validate.EndpointSliceForm
		}
		stored, err := d.dyn.Resource(gvr).Namespace(obj.GetNamespace()).Create(rt.t.Context(), &obj,
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
		if err != nil {
			rt.errorf("%s: the API server refuses the manifest %s: %v\n%s", step, name, err, data)
			continue
		}
		canonical := func(m map[string]any) any {
			return form.Object(validate.DecodeMap(resource.FromResourcePropertyMap(resource.NewPropertyMapFromMap(m))))
		}
		if diff := cmp.Diff(canonical(obj.Object), canonical(stored.Object)); diff != "" {
			rt.errorf("%s: the API server stores something else than the manifest %s (-manifest +stored):\n%s",
				step, name, diff)
		}
	}
}

// programFiles are the names of the manifests of the program's objects.
func (d dirStore) programFiles(rt *roundTrip) []string {
	var out []string
	if rt.pr.kind == "slice" {
		out = append(out, filepath.Base(d.file(sliceGVR, "EndpointSlice", rt.ns, rt.sliceName)))
	}
	for _, k := range rt.items {
		out = append(out, filepath.Base(d.file(endpointsGVR, "Endpoints", k.namespace, k.name)))
	}
	slices.Sort(out)
	return out
}

// TestRenderRoundTrip: see the round-trip test's comment (roundtrip_test.go). The
// namespace is the manifests', for the dry runs.
func TestRenderRoundTrip(t *testing.T) {
	t.Parallel()
	dyn, err := dynamic.NewForConfig(fastRESTConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	runRoundTrips(t, newNamespace(t), func(t *testing.T) objectStore { return dirStore{dir: t.TempDir(), dyn: dyn} })
}
