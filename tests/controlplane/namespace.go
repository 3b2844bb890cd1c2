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
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	created, err := c.clientset.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create a namespace: %v", err)
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
