package apiproxy

import (
	"bytes"
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/ports"
)

// Proxy is a running proxy. Its methods are safe for concurrent use.
type Proxy struct {
	server *httptest.Server
	port   *ports.Reservation

	mu          sync.Mutex
	rules       []*Rule
	requests    []Request
	delay       time.Duration
	beforeSend  func(Request)
	afterAnswer func(Request)
}

// Request is one request the proxy forwarded.
type Request struct {
	Method string
	Path   string
	// Watch tells whether the request is a watch (a GET with watch=true).
	Watch bool
	// Status is the API server's answer (0 when the request failed upstream or was
	// never sent).
	Status int
	// Dropped tells whether the proxy lost the answer on purpose.
	Dropped bool
}

// Rule picks the requests whose answers (or, with Unsent, the requests themselves)
// the proxy drops.
type Rule struct {
	// Method is the request's method: POST (create), PUT or PATCH (update), DELETE.
	Method string
	// PathPrefix is where the request's URL path starts, e.g.
	// /apis/discovery.k8s.io/v1/namespaces/ns/endpointslices for the creates of a
	// namespace's slices, or .../endpointslices/name for the writes of one slice.
	PathPrefix string
	// BodyContains, when not empty, must occur in the request body as the client sent
	// it (a create names its object only there): JSON from a dynamic client, such as
	// `"generateName":"web-"`, protobuf from a typed clientset, where a plain string
	// such as the object's name still occurs.
	BodyContains string
	// Times is how many answers to drop; 0 means every matching one.
	Times int
	// Unsent drops the request itself instead: the API server never sees it, and
	// the client sees the same broken request as for a lost answer.
	Unsent bool
	// Answer, when not zero, replaces the API server's answer, once the request has
	// taken effect, with a Status of that code and Retry-After: 1, instead of dropping
	// it: with 504, kube-apiserver's answer when etcd commits after its timeout.
	Answer int

	dropped int // under the proxy's mu
}

func (r *Rule) matches(req *http.Request, body []byte) bool {
	return req.Method == r.Method && strings.HasPrefix(req.URL.Path, r.PathPrefix) &&
		bytes.Contains(body, []byte(r.BodyContains)) && (r.Times == 0 || r.dropped < r.Times)
}

// Start starts a proxy in front of the API server cfg names, forwarding with cfg's
// credentials. Close stops it.
func Start(cfg *rest.Config) (*Proxy, error) {
	upstream, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("the API server's URL %q: %w", cfg.Host, err)
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("a transport to the API server: %w", err)
	}
	port, err := ports.Reserve()
	if err != nil {
		return nil, err
	}
	ln, err := port.Listen()
	if err != nil {
		return nil, errors.Join(err, port.Release())
	}
	p := &Proxy{port: port}
	forward := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(upstream)
			r.Out.Header.Del("Authorization") // the transport adds cfg's credentials
		},
		Transport:     roundTripper{p: p, next: transport},
		FlushInterval: -1, // watches stream
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if errors.Is(err, errDropped) {
				// Reset the stream (HTTP/2) or close the connection (HTTP/1): no answer.
				panic(http.ErrAbortHandler)
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	p.server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rule := p.claim(r, body)
		if rule != nil && rule.Unsent {
			unsent := newRequest(r)
			unsent.Dropped = true
			p.record(unsent)
			panic(http.ErrAbortHandler)
		}
		r = r.WithContext(context.WithValue(r.Context(), dropKey{}, rule))
		forward.ServeHTTP(w, r)
	}))
	_ = p.server.Listener.Close() // the test server's own, on a port not reserved
	p.server.Listener = ln
	p.server.EnableHTTP2 = true
	p.server.StartTLS()
	return p, nil
}

type dropKey struct{}

// newRequest describes req, not yet answered, for the log and the hooks.
func newRequest(req *http.Request) Request {
	return Request{Method: req.Method, Path: req.URL.Path, Watch: req.URL.Query().Get("watch") == "true"}
}

var errDropped = errors.New("answer dropped by the proxy")

// claim returns the rule that drops the request or its answer, counting it, or nil.
func (p *Proxy) claim(req *http.Request, body []byte) *Rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.rules {
		if r.matches(req, body) {
			r.dropped++
			return r
		}
	}
	return nil
}

func (p *Proxy) record(r Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, r)
}

type roundTripper struct {
	p    *Proxy
	next http.RoundTripper
}

// RoundTrip forwards the request and waits for the whole answer, so that the API
// server has finished with it, then drops it if a rule said so.
func (rt roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	rule, _ := req.Context().Value(dropKey{}).(*Rule)
	drop := rule != nil
	delay := rt.p.Delay()
	if err := sleep(req.Context(), delay); err != nil {
		return nil, err
	}
	record := newRequest(req)
	if hook := rt.p.hook(&rt.p.beforeSend); hook != nil {
		hook(record)
	}
	resp, err := rt.next.RoundTrip(req)
	if err == nil {
		if err := sleep(req.Context(), delay); err != nil {
			_ = resp.Body.Close()
			return nil, err
		}
	}
	record.Dropped = drop && err == nil
	if err == nil {
		record.Status = resp.StatusCode
	}
	rt.p.record(record)
	if hook := rt.p.hook(&rt.p.afterAnswer); err == nil && hook != nil {
		hook(record)
	}
	if err != nil || !drop {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if rule.Answer != 0 {
		return replaced(req, rule.Answer), nil
	}
	return nil, errDropped
}

// replaced is the answer a rule with Answer gives instead of the API server's: a
// Status of that code, with Retry-After: 1.
func replaced(req *http.Request, code int) *http.Response {
	body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Timeout",`+
		`"message":"the proxy replaced the API server's answer","code":%d}`, code)
	header := http.Header{"Content-Type": {"application/json"}, "Retry-After": {"1"}}
	return &http.Response{StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: header, Request: req,
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SetDelay makes the proxy hold every request for d before passing it on, and
// every answer's headers for d before passing them back: a round trip to the API
// server then takes 2d longer, as with a cluster that far away. Zero removes the
// delay. Requests already held keep the delay they started with.
func (p *Proxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

// Delay is the delay each way SetDelay set.
func (p *Proxy) Delay() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.delay
}

// BeforeSend sets a function the proxy calls with each request it passes on, just
// before the API server gets it (after SetDelay's delay); nil removes it. The
// function may call the proxy's methods, BeforeSend too.
func (p *Proxy) BeforeSend(hook func(Request)) { p.setHook(&p.beforeSend, hook) }

// AfterAnswer sets a function the proxy calls with each request the API server has
// answered, Status set, before the answer goes back to the client (or is dropped);
// nil removes it. The function may call the proxy's methods, AfterAnswer too.
func (p *Proxy) AfterAnswer(hook func(Request)) { p.setHook(&p.afterAnswer, hook) }

func (p *Proxy) setHook(field *func(Request), hook func(Request)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	*field = hook
}

func (p *Proxy) hook(field *func(Request)) func(Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return *field
}

// DropAnswers adds a rule; the proxy drops the answers to the requests it matches
// (or replaces them, see Rule.Answer) until the rule has dropped Times answers or is
// removed.
func (p *Proxy) DropAnswers(r *Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = append(p.rules, r)
}

// Dropped tells how many answers (or requests) the rule has dropped.
func (p *Proxy) Dropped(r *Rule) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return r.dropped
}

// ClearRules removes every rule: all answers pass again.
func (p *Proxy) ClearRules() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = nil
}

// Requests returns the requests forwarded so far, in the order their answers came.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.requests...)
}

// URL is the proxy's https://127.0.0.1:<port>.
func (p *Proxy) URL() string { return p.server.URL }

// Kubeconfig is a kubeconfig for the proxy: its URL, its certificate as the CA, and
// no credentials (the proxy adds them).
func (p *Proxy) Kubeconfig() ([]byte, error) {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.server.Certificate().Raw})
	config := clientcmdapi.NewConfig()
	config.Clusters["apiproxy"] = &clientcmdapi.Cluster{Server: p.server.URL, CertificateAuthorityData: ca}
	config.AuthInfos["apiproxy"] = &clientcmdapi.AuthInfo{}
	config.Contexts["apiproxy"] = &clientcmdapi.Context{Cluster: "apiproxy", AuthInfo: "apiproxy"}
	config.CurrentContext = "apiproxy"
	data, err := clientcmd.Write(*config)
	if err != nil {
		return nil, fmt.Errorf("internal error: writing the proxy's kubeconfig: %w", err)
	}
	return data, nil
}

// Cut stops the proxy as an API server gone for good stops: it closes every
// connection and waits for the requests in flight to end, and from then on every
// connection to its address is refused. The address stays the proxy's until Close,
// so no other server can answer there.
func (p *Proxy) Cut() {
	p.server.CloseClientConnections()
	p.server.Close()
}

// Close stops the proxy, as Cut does, and frees its port.
func (p *Proxy) Close() {
	p.Cut()
	_ = p.port.Release()
}
