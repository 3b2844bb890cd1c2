// Package apiproxy is a reverse proxy for tests, on 127.0.0.1, in front of a
// Kubernetes API server. It terminates TLS with its own certificate (HTTP/2, as
// client-go speaks it to a real API server), forwards every request with the
// credentials of the rest.Config it was given, and can be told to lose the answer
// to chosen writes: the API server handles the request, then the proxy resets the
// stream instead of passing the answer on. The client sees what a connection that
// breaks at the worst moment shows it: no answer to a write that took effect. It can
// also drop a request before the API server sees it (the same broken request, but
// nothing happened). And it can hold every request and answer for a fixed time
// (SetDelay), as a cluster far away does. It logs the requests it passes on
// (Requests), and calls a test's functions before a request reaches the API server
// (BeforeSend) and once the API server has answered it (AfterAnswer).
//
// A client reaches the API server through the proxy with the proxy's Kubeconfig,
// which trusts the proxy's certificate and holds no credentials.
package apiproxy
