package googledouble

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Fault is one scripted misbehaviour. Queued faults are used up one per API request, in
// order; requests find the queue empty are answered normally.
type Fault struct {
	// Delay holds the answer back this long, or until the client gives up. A fault with
	// only a Delay is then answered normally.
	Delay time.Duration
	// Status answers with this HTTP status and Google's error envelope.
	Status int
	// Message is the envelope's message; empty uses Google's usual one for Status.
	Message string
	// RetryAfter sets the Retry-After header of a Status answer.
	RetryAfter time.Duration
	// Reset sends the start of a successful answer, then resets the connection.
	Reset bool
	// MalformedJSON answers 200 with a complete body that is not valid JSON.
	MalformedJSON bool
}

// Fail queues n answers with the given HTTP status and Google's error envelope.
func (s *Server) Fail(n, status int) {
	for range n {
		s.Enqueue(Fault{Status: status})
	}
}

// ResetConnections queues n answers that break off with a connection reset.
func (s *Server) ResetConnections(n int) {
	for range n {
		s.Enqueue(Fault{Reset: true})
	}
}

// Enqueue queues faults for the next API requests.
func (s *Server) Enqueue(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// SetDelay holds back every later answer by d, or until the client gives up; zero stops it.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// nextFault pops the next queued fault and returns it with the standing delay.
func (s *Server) nextFault() (Fault, time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.faults) == 0 {
		return Fault{}, s.delay, false
	}
	f := s.faults[0]
	s.faults = s.faults[1:]
	return f, s.delay, true
}

// wait sleeps for d or until the request ends; it reports whether the request is still on.
func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// apply carries out a fault; it reports whether the request was answered.
func (f Fault) apply(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case f.Reset:
		resetMidResponse(w)
		return true
	case f.MalformedJSON:
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"name": "projects/`))
		return true
	case f.Status != 0:
		if f.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(f.RetryAfter.Round(time.Second)/time.Second)))
		}
		writeError(w, f.Status, f.Message)
		return true
	}
	return false
}

// resetMidResponse starts a 200 answer whose body is cut short, then closes the TCP
// connection with an RST, as a connection reset by a middlebox looks to the client.
func resetMidResponse(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		writeError(w, http.StatusInternalServerError, "googledouble: the connection cannot be hijacked")
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	_, _ = fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: 4096\r\n\r\n{\"name\": \"proj")
	_ = buf.Flush()
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0) // close with RST instead of FIN
	}
	_ = conn.Close()
}

// statusOf is Google's canonical status name and usual message for an HTTP status.
func statusOf(code int) (status, message string) {
	switch code {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT", "Request contains an invalid argument."
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
	case http.StatusForbidden:
		return "PERMISSION_DENIED", "The caller does not have permission"
	case http.StatusNotFound:
		return "NOT_FOUND", "Requested entity was not found."
	case http.StatusConflict:
		return "ABORTED", "The operation was aborted."
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute'."
	case http.StatusNotImplemented:
		return "UNIMPLEMENTED", "Operation is not implemented, or supported, or enabled."
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE", "The service is currently unavailable."
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED", "Deadline expired before operation could complete."
	default:
		if code >= 500 {
			return "INTERNAL", "Internal error encountered."
		}
		return "UNKNOWN", http.StatusText(code)
	}
}
