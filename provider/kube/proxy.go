package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"

	"k8s.io/client-go/transport"
)

// Proxies between the provider and the API server: a kubeconfig's proxy-url, or
// HTTPS_PROXY and the other proxy variables where it sets none (client-go honours both,
// with Go's transport). Which of their failures show that nothing reached the API
// server (see notSent), and which proxy's answers are its own refusal rather than an
// API server that could not be reached (see unreachable). Go's transport reports a
// proxy's failures in three forms, none of them the *net.OpError "dial" of a direct
// connection:
//
//   - the connection to the proxy could not be made (refused, a name that does not
//     resolve, a dial that got no answer, the TLS of an https:// proxy): a
//     *net.OpError "proxyconnect" around the cause;
//   - a SOCKS proxy broke off its handshake or refused the CONNECT command: a
//     *net.OpError "socks connect", whose cause names the SOCKS reply ("unknown error
//     connection refused");
//   - an HTTP proxy answered the CONNECT of an https:// API server with another status
//     than 200: a plain error holding the status's reason phrase only ("Bad Gateway"),
//     which proxyTransport names (proxyRefused).
//
// In all three, the tunnel to the API server was not made, so nothing of the request
// reached it. A request an HTTP proxy forwarded (to an http:// API server) or sent
// through a tunnel it made (CONNECT answered 200) may have reached the API server, and
// is judged as on a direct connection. Two failures of a tunnel's making are left as
// they were: a proxy that closes the connection before it answers the CONNECT (judged
// as a connection that broke, answerLost) and one that does not answer it within the
// request timeout (a slow answer).

// proxyOps are the operations of the *net.OpError that Go's transport returns when
// the connection to a proxy, or a SOCKS proxy's handshake, fails.
var proxyOps = []string{"proxyconnect", "socks connect"}

// anyOp tells whether a *net.OpError of err's chain, not only the outermost one, is
// one of ops: Go's transport wraps a failed dial to a proxy in a "proxyconnect" one.
func anyOp(err error, ops ...string) bool {
	for err != nil {
		var op *net.OpError
		if !errors.As(err, &op) {
			return false
		}
		if slices.Contains(ops, op.Op) {
			return true
		}
		err = op.Err
	}
	return false
}

// proxyAnswered tells whether err is a proxy's refusal of its own: an HTTP proxy's
// answer to the CONNECT other than 502, 503 or 504 (403 Forbidden, 407 Proxy
// Authentication Required), or a SOCKS proxy's refusal by its rules, of a command or
// an address type, or of the credentials. Nothing reached the API server (see notSent),
// and the proxy said why, as an API server answers a status: it does not tell that the
// API server is unreachable.
func proxyAnswered(err error) bool {
	var refused *proxyRefused
	if errors.As(err, &refused) {
		return !refused.unreached()
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "socks connect" || op.Err == nil {
		return false
	}
	cause := op.Err.Error()
	return strings.Contains(cause, "not allowed by ruleset") || strings.Contains(cause, "not supported") ||
		strings.Contains(cause, "authentication") || strings.Contains(cause, "username/password")
}

// proxyRefused is an HTTP proxy's answer other than 200 to the CONNECT of a request
// to an https:// API server: the tunnel was not made, so nothing reached the API
// server. Go's transport keeps only the status's reason phrase.
type proxyRefused struct{ proxy, reason string }

func (e *proxyRefused) Error() string {
	return fmt.Sprintf("the proxy %s did not open a tunnel to the API server: it answered %q", e.proxy, e.reason)
}

// unreached tells whether the proxy answered that it could not reach the API server:
// 502 Bad Gateway, 503 Service Unavailable or 504 Gateway Timeout, by their standard
// reason phrases (the only part of the status Go's transport keeps). Another phrase,
// such as Privoxy's "Connect failed", is taken for the proxy's own refusal: its error
// names the answer, and deleteUnreachable does not apply.
func (e *proxyRefused) unreached() bool {
	for _, code := range []int{http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout} {
		if strings.EqualFold(e.reason, http.StatusText(code)) {
			return true
		}
	}
	return false
}

// proxyTransport is a transport under every client: it names an HTTP proxy's answer
// other than 200 to the CONNECT of a request (see proxyRefused). It tells that answer
// by how the request failed: a connection to the proxy was made (the trace's
// ConnectDone), no connection to the API server came (GotConn), and the error is a
// plain one, neither a network error, nor an end of the stream, nor a context's.
type proxyTransport struct {
	next http.RoundTripper
	// proxy picks a request's proxy as client-go's transport does.
	proxy func(*http.Request) (*url.URL, error)
}

// proxyRefusals returns the wrapper of a client's transport in proxyTransport, whose
// proxy is proxy, the rest.Config's (http.ProxyFromEnvironment when nil, as
// client-go's transport has it).
func proxyRefusals(proxy func(*http.Request) (*url.URL, error)) transport.WrapperFunc {
	if proxy == nil {
		proxy = http.ProxyFromEnvironment
	}
	return func(next http.RoundTripper) http.RoundTripper { return proxyTransport{next: next, proxy: proxy} }
}

func (t proxyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	proxy, err := t.proxy(req)
	if err != nil || proxy == nil || req.URL.Scheme != "https" || (proxy.Scheme != "http" && proxy.Scheme != "https") {
		return t.next.RoundTrip(req)
	}
	var dialed, connected atomic.Bool
	trace := &httptrace.ClientTrace{
		ConnectDone: func(_, _ string, err error) {
			if err == nil {
				dialed.Store(true)
			}
		},
		GotConn: func(httptrace.GotConnInfo) { connected.Store(true) },
	}
	resp, err := t.next.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	if err != nil && dialed.Load() && !connected.Load() && plainError(err) {
		return resp, &proxyRefused{proxy: proxy.Redacted(), reason: err.Error()}
	}
	return resp, err
}

// plainError tells whether err carries nothing but its text: not a network error, an
// end of the stream, a context's error, nor one that wraps another.
func plainError(err error) bool {
	var netErr net.Error
	return errors.Unwrap(err) == nil && !errors.As(err, &netErr) && !errors.Is(err, io.EOF) &&
		!errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, context.Canceled) &&
		!errors.Is(err, context.DeadlineExceeded)
}
