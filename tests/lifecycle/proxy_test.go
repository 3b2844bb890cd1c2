package lifecycle_test

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/endpoints-provider/pulumi-endpoints/tests/controlplane"
)

// apiProxy is a reverse proxy on 127.0.0.1 in front of the control plane's API server.
// It records the requests that pass through it and can act after the server has
// answered a DELETE, before the answer reaches the client, and before a read (a GET
// that is not a watch) reaches the server.
type apiProxy struct {
	server string

	mu          sync.Mutex
	requests    []string
	afterDelete func(path string)
	beforeGet   func(path string)
}

// newAPIProxy starts a proxy that forwards requests with the admin's credentials; the
// kubeconfig it returns points at it.
func newAPIProxy(t *testing.T) (*apiProxy, []byte) {
	t.Helper()
	cfg := controlplane.Shared(t).RESTConfig()
	upstream, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	px := &apiProxy{}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(upstream) },
		Transport:     roundTripFunc(func(req *http.Request) (*http.Response, error) { return px.roundTrip(transport, req) }),
		FlushInterval: -1, // stream watches
	}
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	px.server = "http://" + ln.Addr().String()

	config := clientcmdapi.NewConfig()
	config.Clusters["proxy"] = &clientcmdapi.Cluster{Server: px.server}
	config.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	config.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy"}
	config.CurrentContext = "proxy"
	kubeconfig, err := clientcmd.Write(*config)
	if err != nil {
		t.Fatal(err)
	}
	return px, kubeconfig
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (px *apiProxy) roundTrip(next http.RoundTripper, req *http.Request) (*http.Response, error) {
	px.mu.Lock()
	before := px.beforeGet
	px.mu.Unlock()
	if before != nil && describe(req) == http.MethodGet+" "+req.URL.Path {
		before(req.URL.Path)
	}
	resp, err := next.RoundTrip(req)
	px.mu.Lock()
	px.requests = append(px.requests, describe(req))
	hook := px.afterDelete
	px.mu.Unlock()
	if err == nil && req.Method == http.MethodDelete && hook != nil {
		hook(req.URL.Path)
	}
	return resp, err
}

// describe renders a request as "DELETE /path", "GET /path" or "WATCH /path".
func describe(req *http.Request) string {
	method := req.Method
	if req.URL.Query().Get("watch") == "true" {
		method = "WATCH"
	}
	return method + " " + req.URL.Path
}

// onDelete sets what happens after the server has answered a DELETE.
func (px *apiProxy) onDelete(hook func(path string)) {
	px.mu.Lock()
	defer px.mu.Unlock()
	px.afterDelete = hook
}

// onGet sets what happens before a read reaches the server.
func (px *apiProxy) onGet(hook func(path string)) {
	px.mu.Lock()
	defer px.mu.Unlock()
	px.beforeGet = hook
}

// take returns the requests recorded since the last call whose path contains sub.
func (px *apiProxy) take(sub string) []string {
	px.mu.Lock()
	defer px.mu.Unlock()
	var out []string
	for _, r := range px.requests {
		if strings.Contains(r, sub) {
			out = append(out, r)
		}
	}
	px.requests = nil
	return out
}
