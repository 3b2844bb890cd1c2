package lifecycle_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pulumi/pulumi-go-provider/integration"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/apiproxy"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// apiProxy is a proxy (tests/harness/apiproxy) in front of the shared control plane's API
// server, with the admin's credentials. It records the requests that pass through
// it and can act after the server has answered a DELETE, before the answer reaches
// the client, and before a read (a GET that is not a watch) reaches the server.
type apiProxy struct {
	*apiproxy.Proxy
	taken int // how many of the recorded requests take has passed over
}

// newProxiedProvider starts a proxy and returns it with a provider that reaches the
// API server through it.
func newProxiedProvider(t *testing.T) (*apiProxy, integration.Server) {
	t.Helper()
	px, kubeconfig := apiproxy.StartT(t, controlplane.Shared(t).RESTConfig())
	return &apiProxy{Proxy: px}, newProvider(t, kubeconfig, nil)
}

// describe renders a request as "DELETE /path", "GET /path" or "WATCH /path".
func describe(r apiproxy.Request) string {
	method := r.Method
	if r.Watch {
		method = "WATCH"
	}
	return method + " " + r.Path
}

// onDelete sets what happens after the server has answered a DELETE (nil: nothing).
func (px *apiProxy) onDelete(hook func(path string)) {
	if hook == nil {
		px.AfterAnswer(nil)
		return
	}
	px.AfterAnswer(func(r apiproxy.Request) {
		if r.Method == http.MethodDelete {
			hook(r.Path)
		}
	})
}

// onGet sets what happens before a read reaches the server.
func (px *apiProxy) onGet(hook func(path string)) {
	px.BeforeSend(func(r apiproxy.Request) {
		if r.Method == http.MethodGet && !r.Watch {
			hook(r.Path)
		}
	})
}

// take returns the requests recorded since the last call whose description contains
// sub. Only the test's goroutine calls it.
func (px *apiProxy) take(sub string) []string {
	all := px.Requests()
	var out []string
	for _, r := range all[px.taken:] {
		if d := describe(r); strings.Contains(d, sub) {
			out = append(out, d)
		}
	}
	px.taken = len(all)
	return out
}
