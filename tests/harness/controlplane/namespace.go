package controlplane

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Namespace creates a namespace named after prefix (with a random suffix) for one
// test and deletes it when the test ends.
func (c *ControlPlane) Namespace(t testing.TB, prefix string) string {
	t.Helper()
	return c.createNamespace(t, metav1.ObjectMeta{GenerateName: prefix + "-"})
}

// NamedNamespace creates the namespace name for one test and deletes it when the
// test ends, for a test that must choose the name itself (one it has already given
// the provider, or the same name on two control planes).
func (c *ControlPlane) NamedNamespace(t testing.TB, name string) {
	t.Helper()
	c.createNamespace(t, metav1.ObjectMeta{Name: name})
}

func (c *ControlPlane) createNamespace(t testing.TB, meta metav1.ObjectMeta) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: meta}
	created, err := c.clientset.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace %s: %v", meta.Name+meta.GenerateName, err)
	}
	t.Cleanup(func() {
		// t.Context() is done by now: the clean-up has a short context of its own.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.clientset.CoreV1().Namespaces().Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
			t.Logf("delete namespace %s: %v", created.Name, err)
		}
	})
	return created.Name
}
