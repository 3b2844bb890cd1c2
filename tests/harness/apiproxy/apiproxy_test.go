package apiproxy_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/apiproxy"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/ports"
)

func TestMain(m *testing.M) { os.Exit(controlplane.RunTests(m)) }

// startProxy starts a proxy in front of cp's API server for one test and returns it
// with a clientset that reaches the API server through it.
func startProxy(t *testing.T, cp *controlplane.ControlPlane) (*apiproxy.Proxy, kubernetes.Interface) {
	t.Helper()
	proxy, kubeconfig := apiproxy.StartT(t, cp.RESTConfig())
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return proxy, cs
}

// A dropped answer reaches the client as a broken request, not as an API status,
// although the API server carried out the write; other requests pass, and the rule
// stops after Times answers.
func TestDropAnswers(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	proxy, cs := startProxy(t, cp)
	ns, err := cs.CoreV1().Namespaces().Create(t.Context(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "apiproxy-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a create through the proxy: %v", err)
	}
	maps := cs.CoreV1().ConfigMaps(ns.Name)
	rule := &apiproxy.Rule{Method: "POST", PathPrefix: "/api/v1/namespaces/" + ns.Name + "/configmaps",
		BodyContains: "lost", Times: 1}
	proxy.DropAnswers(rule)

	_, err = maps.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "lost"}}, metav1.CreateOptions{})
	var status apierrors.APIStatus
	if err == nil || errors.As(err, &status) {
		t.Fatalf("the create whose answer was dropped answered %v; want a broken request", err)
	}
	if _, err := cp.Clientset().CoreV1().ConfigMaps(ns.Name).Get(t.Context(), "lost", metav1.GetOptions{}); err != nil {
		t.Errorf("the API server did not carry out the create whose answer was dropped: %v", err)
	}
	if _, err := maps.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept"}},
		metav1.CreateOptions{}); err != nil {
		t.Errorf("a create the rule does not match: %v", err)
	}
	if _, err := maps.Get(t.Context(), "lost", metav1.GetOptions{}); err != nil {
		t.Errorf("a read after the dropped answer: %v", err)
	}
	if n := proxy.Dropped(rule); n != 1 {
		t.Errorf("the rule dropped %d answers, want 1", n)
	}
	// Times reached: the same request passes now (and meets the object).
	_, err = maps.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "lost"}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		t.Errorf("a create once the rule is spent = %v, want the API server's 409", err)
	}
	// An unsent request: the same broken request, and nothing on the server.
	proxy.DropAnswers(&apiproxy.Rule{Method: "POST", PathPrefix: "/api/v1/namespaces/" + ns.Name + "/configmaps",
		BodyContains: "unsent", Unsent: true})
	_, err = maps.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "unsent"}}, metav1.CreateOptions{})
	if err == nil || errors.As(err, &status) {
		t.Errorf("the create that was never sent answered %v; want a broken request", err)
	}
	if _, err := cp.Clientset().CoreV1().ConfigMaps(ns.Name).Get(t.Context(), "unsent", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the create that was never sent: the object on the server: %v, want not found", err)
	}
	var dropped []apiproxy.Request
	for _, r := range proxy.Requests() {
		if r.Dropped {
			dropped = append(dropped, r)
		}
	}
	if len(dropped) != 2 || dropped[0].Status != 201 || dropped[1].Status != 0 {
		t.Errorf("dropped requests %+v, want a POST the server answered 201 and one it never saw", dropped)
	}
}

// SetDelay holds each request and each answer: a round trip takes at least twice the
// delay, and no longer once the delay is removed.
func TestDelay(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	proxy, cs := startProxy(t, cp)
	get := func() time.Duration {
		start := time.Now()
		if _, err := cs.CoreV1().Namespaces().Get(t.Context(), "default", metav1.GetOptions{}); err != nil {
			t.Fatalf("a read through the proxy: %v", err)
		}
		return time.Since(start)
	}
	get() // connect
	const delay = 150 * time.Millisecond
	proxy.SetDelay(delay)
	if took := get(); took < 2*delay {
		t.Errorf("a read with a delay of %v each way took %v; want at least %v", delay, took, 2*delay)
	}
	proxy.SetDelay(0)
	if took := get(); took >= 2*delay {
		t.Errorf("a read after the delay was removed took %v; want under %v", took, 2*delay)
	}
}

// BeforeSend sees a request before the API server answers it, AfterAnswer sees the
// answer's status before the client does, and the request log tells a watch from a
// read.
func TestHooks(t *testing.T) {
	t.Parallel()
	proxy, cs := startProxy(t, controlplane.Shared(t))
	var (
		mu   sync.Mutex
		seen []string
	)
	see := func(when string, r apiproxy.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, fmt.Sprintf("%s %s %s %d", when, r.Method, r.Path, r.Status))
	}
	proxy.BeforeSend(func(r apiproxy.Request) { see("before", r) })
	proxy.AfterAnswer(func(r apiproxy.Request) {
		proxy.AfterAnswer(nil) // the first answer only
		see("after", r)
	})
	if _, err := cs.CoreV1().Namespaces().Get(t.Context(), "default", metav1.GetOptions{}); err != nil {
		t.Fatalf("a read through the proxy: %v", err)
	}
	proxy.BeforeSend(nil)
	w, err := cs.CoreV1().Namespaces().Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("a watch through the proxy: %v", err)
	}
	w.Stop()
	want := []string{"before GET /api/v1/namespaces/default 0", "after GET /api/v1/namespaces/default 200"}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, want) {
		t.Errorf("the hooks saw %q, want %q", seen, want)
	}
	wantLog := []apiproxy.Request{
		{Method: "GET", Path: "/api/v1/namespaces/default", Status: 200},
		{Method: "GET", Path: "/api/v1/namespaces", Watch: true, Status: 200},
	}
	if got := proxy.Requests(); !slices.Equal(got, wantLog) {
		t.Errorf("requests %+v, want %+v", got, wantLog)
	}
}

// After Cut, a connection to the proxy's address is refused and no other server can
// listen there, until Close.
func TestCut(t *testing.T) {
	t.Parallel()
	proxy, cs := startProxy(t, controlplane.Shared(t))
	if _, err := cs.Discovery().ServerVersion(); err != nil {
		t.Fatalf("a request through the proxy: %v", err)
	}
	addr := strings.TrimPrefix(proxy.URL(), "https://")
	proxy.Cut()
	if err := ports.Held(addr); err != nil {
		t.Fatalf("after Cut: %v", err)
	}
	proxy.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("after Close, the proxy's address is still held: %v", err)
	}
	_ = ln.Close()
}
