package controlplane

import (
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// The resources the provider's kinds are stored as.
var (
	SlicesResource    = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
	EndpointsResource = schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}
)

// sliceManager is the managed-by label value of the EndpointSlice controller's slices.
const sliceManager = "endpointslice-controller.k8s.io"

// SelectedService creates a Service with a selector and the label app=<name>, which
// the endpoints controller copies onto its Endpoints, and waits (30 s at most) until
// the EndpointSlice controller and the endpoints controller have written their objects
// for it; it returns the controller's slice.
func (c *ControlPlane) SelectedService(t testing.TB, ns, name string) discoveryv1.EndpointSlice {
	t.Helper()
	cs := c.Clientset()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": name}},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": name},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}},
		},
	}
	if _, err := cs.CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Service %s/%s: %v", ns, name, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ss, err := cs.DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{
			LabelSelector: discoveryv1.LabelServiceName + "=" + name,
		})
		_, epErr := cs.CoreV1().Endpoints(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err == nil && epErr == nil && len(ss.Items) == 1 && ss.Items[0].Labels[discoveryv1.LabelManagedBy] == sliceManager {
			return ss.Items[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no controller slice and Endpoints of Service %s/%s after 30s: slices %v (%v), Endpoints: %v",
				ns, name, ss, err, epErr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// LiveOutputs reads an object and returns it as the provider's outputs show it (see
// ObjectOutputs).
func (c *ControlPlane) LiveOutputs(t testing.TB, gvr schema.GroupVersionResource, ns, name string) map[string]any {
	t.Helper()
	obj, err := dynamic.NewForConfigOrDie(c.RESTConfig()).Resource(gvr).Namespace(ns).
		Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s %s/%s: %v", gvr.Resource, ns, name, err)
	}
	return ObjectOutputs(t, obj)
}

// ObjectOutputs is obj as the provider's outputs show it: the server's JSON without
// apiVersion, kind and metadata.managedFields, in Plain's form.
func ObjectOutputs(t testing.TB, obj *unstructured.Unstructured) map[string]any {
	t.Helper()
	m := obj.DeepCopy().Object
	delete(m, "apiVersion")
	delete(m, "kind")
	unstructured.RemoveNestedField(m, "metadata", "managedFields")
	return Plain(t, m)
}

// Plain is v as JSON decodes it (numbers float64, as property values have them),
// without null fields, which outputs leave out or spell as null (the EndpointSlice
// controller's placeholder slice has "endpoints": null).
func Plain(t testing.TB, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	dropNulls(out)
	return out
}

func dropNulls(v any) {
	switch v := v.(type) {
	case map[string]any:
		for key, e := range v {
			if e == nil {
				delete(v, key)
			} else {
				dropNulls(e)
			}
		}
	case []any:
		for _, e := range v {
			dropNulls(e)
		}
	}
}
