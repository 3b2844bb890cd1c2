package dataplane

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	// requestTimeout bounds one request of the load client: one that takes longer
	// has failed.
	requestTimeout = 2 * time.Second
	// maxErrors is how many failures' errors Counts keeps.
	maxErrors = 5
)

// Counts are the requests a client made, by what became of them.
type Counts struct {
	// Served counts the answered requests by the endpoint that served them
	// (Backend.Endpoint).
	Served map[string]int
	// Failed counts the requests that got no answer from a backend: refused,
	// reset, timed out or answered with an error.
	Failed int
	// Errors are the first failures' errors, to say what went wrong.
	Errors []string
}

// Total is the number of requests.
func (c Counts) Total() int {
	n := c.Failed
	for _, v := range c.Served {
		n += v
	}
	return n
}

// Endpoints returns the endpoints that served at least one request, sorted.
func (c Counts) Endpoints() []string {
	return slices.Sorted(maps.Keys(c.Served))
}

// String says how many requests each endpoint served and how many failed, for a
// test's output.
func (c Counts) String() string {
	parts := make([]string, 0, len(c.Served)+1)
	for _, e := range c.Endpoints() {
		parts = append(parts, fmt.Sprintf("%s: %d", e, c.Served[e]))
	}
	parts = append(parts, fmt.Sprintf("failed: %d", c.Failed))
	s := fmt.Sprintf("%d requests (%s)", c.Total(), strings.Join(parts, ", "))
	if len(c.Errors) > 0 {
		s += "; first errors: " + strings.Join(c.Errors, "; ")
	}
	return s
}

func (c *Counts) add(endpoint string, err error) {
	if err != nil {
		c.Failed++
		if len(c.Errors) < maxErrors {
			c.Errors = append(c.Errors, err.Error())
		}
		return
	}
	if c.Served == nil {
		c.Served = map[string]int{}
	}
	c.Served[endpoint]++
}

func (c Counts) clone() Counts {
	return Counts{Served: maps.Clone(c.Served), Failed: c.Failed, Errors: slices.Clone(c.Errors)}
}

// client sends GET requests to a URL, whose host CoreDNS resolves when it is a name.
// Every request opens a new connection, so that kube-proxy chooses an endpoint for
// each.
type client struct {
	url  string
	http *http.Client
}

// newClient returns a client of the target "host:port": a cluster IP and port, or a
// Service's DNS name and port.
func newClient(target string) *client { return newURLClient("http://" + target + "/") }

func newURLClient(url string) *client {
	dialer := &net.Dialer{Timeout: requestTimeout, Resolver: Resolver()}
	return &client{
		url: url,
		http: &http.Client{
			Timeout: requestTimeout,
			Transport: &http.Transport{
				DialContext:       dialer.DialContext,
				DisableKeepAlives: true,
			},
		},
	}
}

// get makes one request and returns its answer (from a backend, the endpoint that
// served it); an answer other than 200 OK is an error.
func (c *client) get(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return "", err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	return string(body), nil
}

// Probe sends n requests to target, one after another, and counts them.
func Probe(ctx context.Context, target string, n int) Counts {
	c := newClient(target)
	var counts Counts
	for range n {
		counts.add(c.get(ctx))
	}
	return counts
}

// Load is a client that sends requests to a target without pause, one after
// another, until Stop.
type Load struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	counts Counts
}

// StartLoad starts a client that sends requests to target (see Probe) without
// pause until Stop, or until t ends.
func StartLoad(t testing.TB, target string) *Load {
	t.Helper()
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	l := &Load{cancel: cancel, done: make(chan struct{})}
	c := newClient(target)
	go func() {
		defer close(l.done)
		for {
			endpoint, err := c.get(ctx)
			if ctx.Err() != nil {
				return // cut short by Stop: not counted
			}
			l.mu.Lock()
			l.counts.add(endpoint, err)
			l.mu.Unlock()
		}
	}()
	t.Cleanup(func() { l.Stop() })
	return l
}

// Counts returns the counts so far.
func (l *Load) Counts() Counts {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts.clone()
}

// Stop stops the client, once the request it is making is cut short (that one is
// not counted), and returns the counts. Later calls return the same.
func (l *Load) Stop() Counts {
	l.cancel()
	<-l.done
	return l.Counts()
}

// WaitServed waits until requests to target are served by exactly the endpoints
// want, with no failure, in rounds of requests, and fails t if they are not within
// a minute (kube-proxy and CoreDNS follow changes within a second or two). It
// returns the last round's counts.
func WaitServed(t testing.TB, target string, want ...string) Counts {
	t.Helper()
	const round = 40
	want = slices.Sorted(slices.Values(want))
	deadline := time.Now().Add(time.Minute)
	for {
		counts := Probe(t.Context(), target, round)
		if counts.Failed == 0 && slices.Equal(counts.Endpoints(), want) {
			return counts
		}
		if time.Now().After(deadline) {
			t.Fatalf("requests to %s are not served by exactly %v: the last %s", target, want, counts)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
