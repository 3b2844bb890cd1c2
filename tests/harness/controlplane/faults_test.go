package controlplane_test

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/ports"
)

// Kill ends a component with SIGKILL (a new PID afterwards proves it ran again) and
// Restart brings it back on the same ports and data: what was stored before the
// crash is still there, and writes work again. While the API server is down, its
// address refuses connections and stays reserved.
func TestKillAndRestart(t *testing.T) {
	t.Parallel()
	cp := controlplane.StartT(t) // its own: this test kills its processes
	cs := cp.Clientset()
	// The processes in start order: etcd, kube-apiserver, kube-controller-manager.
	for comp, index := range map[controlplane.Component]int{controlplane.APIServer: 1, controlplane.Etcd: 0} {
		name := string(comp) + "-kept"
		if _, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(),
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		before := controlplane.PIDs(cp)
		if err := cp.Restart(t.Context(), comp); err == nil {
			t.Errorf("Restart(%s) of a running component succeeded", comp)
		}
		if err := cp.Kill(comp); err != nil {
			t.Fatal(err)
		}
		if comp == controlplane.APIServer {
			if _, err := cs.CoreV1().ConfigMaps("default").Get(t.Context(), name, metav1.GetOptions{}); err == nil {
				t.Fatalf("the API server answers after Kill(%s)", comp)
			}
			if err := ports.Held(strings.TrimPrefix(cp.RESTConfig().Host, "https://")); err != nil {
				t.Fatalf("after Kill(%s): %v", comp, err)
			}
		}
		if err := cp.Restart(t.Context(), comp); err != nil {
			t.Fatal(err)
		}
		after := controlplane.PIDs(cp)
		others := func(pids []int) []int { return slices.Delete(slices.Clone(pids), index, index+1) }
		if before[index] == after[index] || !slices.Equal(others(before), others(after)) {
			t.Errorf("PIDs before %v, after %v: want a new process for %s alone", before, after, comp)
		}
		if _, err := cs.CoreV1().ConfigMaps("default").Get(t.Context(), name, metav1.GetOptions{}); err != nil {
			t.Errorf("after restarting %s, the object stored before the kill: %v", comp, err)
		}
		if _, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(),
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name + "-after"}}, metav1.CreateOptions{}); err != nil {
			t.Errorf("after restarting %s, a create: %v", comp, err)
		}
	}
}
