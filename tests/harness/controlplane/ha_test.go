package controlplane_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// An HA control plane keeps serving through its load balancer when the API server
// holding the clients' connections dies, and when the etcd leader dies (another
// member takes over); the killed processes restart and rejoin: the load balancer
// counts both API servers healthy again, and the restarted member serves.
func TestHA(t *testing.T) {
	controlplane.SkipHAIfAsked(t)
	t.Parallel()
	h := controlplane.StartHAT(t, controlplane.Options{AllControllers: true})
	lb := controlplane.LB(h)
	if healthy := lb.Healthy(); len(healthy) != 2 {
		t.Fatalf("healthy API servers behind the load balancer: %v, want 2", healthy)
	}
	// A write right after a fault may fail (the etcd cluster elects a new leader,
	// a client's connection broke); within 30 s one succeeds.
	write := func(step string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("ha-%d", time.Now().UnixNano())}}
			_, err := h.Clientset().CoreV1().ConfigMaps("default").Create(t.Context(), cm, metav1.CreateOptions{})
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no create through the load balancer succeeds within 30 s: %v", step, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	write("before the faults")

	apiServer := h.BusiestAPIServer()
	if err := h.Kill(apiServer); err != nil {
		t.Fatal(err)
	}
	write("with " + string(apiServer) + " killed")
	healthyAfter(t, lb, 1, "with "+string(apiServer)+" killed")

	leader, err := h.EtcdLeader(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Kill(leader); err != nil {
		t.Fatal(err)
	}
	write("with " + string(leader) + ", the etcd leader, killed")
	if next, err := h.EtcdLeader(t.Context()); err != nil || next == leader {
		t.Errorf("the etcd leader after killing %s: %s, %v; want another member", leader, next, err)
	}

	for _, comp := range []controlplane.Component{leader, apiServer} {
		if err := h.Restart(t.Context(), comp); err != nil {
			t.Fatal(err)
		}
	}
	healthyAfter(t, lb, 2, "after the restarts")
	write("after the restarts")
}

// healthyAfter checks that within a few health checks the load balancer counts n
// backends healthy.
func healthyAfter(t *testing.T, lb *controlplane.LoadBalancer, n int, step string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for len(lb.Healthy()) != n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if healthy := lb.Healthy(); len(healthy) != n {
		t.Errorf("%s: the load balancer counts %v healthy, want %d backends", step, healthy, n)
	}
}
