package cloudauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// counted is a source whose tokens are tok-1, tok-2, ... living lifetime each.
type counted struct {
	mu       sync.Mutex
	n        int
	lifetime time.Duration
	now      func() time.Time
	err      error
	renewed  int
	// cloud is the source's cloud; empty means EKS.
	cloud Cloud
	// renewedHook, when set, runs on each renewal, under mu.
	renewedHook func()
}

func (c *counted) Token(context.Context) (Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return Token{}, c.err
	}
	c.n++
	return Token{Value: fmt.Sprintf("tok-%d", c.n), Expiry: c.now().Add(c.lifetime)}, nil
}

func (c *counted) Describe() string {
	return fmt.Sprintf("%s cluster demo at https://203.0.113.10 with a test source", c.Cloud())
}

func (c *counted) Cloud() Cloud {
	if c.cloud == "" {
		return EKS
	}
	return c.cloud
}

func (c *counted) renew() {
	c.mu.Lock()
	c.renewed++
	if c.renewedHook != nil {
		c.renewedHook()
	}
	c.mu.Unlock()
}

func TestCacheRenewsBeforeExpiry(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		lifetime time.Duration
		// at is when the second token is asked for, after the first; want is its value.
		at   time.Duration
		want string
	}{
		{"EKS: kept at 13m59s", 15 * time.Minute, 13*time.Minute + 59*time.Second, "tok-1"},
		{"EKS: renewed a minute before", 15 * time.Minute, 14 * time.Minute, "tok-2"},
		{"short life: kept at 2/3", 8 * time.Second, 5 * time.Second, "tok-1"},
		{"short life: renewed at 3/4", 8 * time.Second, 6 * time.Second, "tok-2"},
		{"expired", time.Second, 2 * time.Second, "tok-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			at := clock
			src := &counted{lifetime: tt.lifetime, now: func() time.Time { return at }}
			c := &cache{src: src, now: func() time.Time { return at }}
			if tok, err := c.token(t.Context()); err != nil || tok.Value != "tok-1" {
				t.Fatalf("first token %v, %v", tok, err)
			}
			at = clock.Add(tt.at)
			tok, err := c.token(t.Context())
			if err != nil || tok.Value != tt.want {
				t.Errorf("token after %s = %q, %v; want %s", tt.at, tok.Value, err, tt.want)
			}
		})
	}
}

// apiServer answers 401 with a Kubernetes Status to the tokens refused, 200 to others,
// and records the bodies it received.
func apiServer(t *testing.T, refused ...string) (*httptest.Server, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, r.Header.Get("Authorization")+" "+string(b))
		mu.Unlock()
		for _, tok := range refused {
			if r.Header.Get("Authorization") == "Bearer "+tok {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`)
				return
			}
		}
		_, _ = io.WriteString(w, `{}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &bodies
}

func post(t *testing.T, rt http.RoundTripper, url, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestTransportCachesTokens(t *testing.T) {
	t.Parallel()
	srv, bodies := apiServer(t)
	src := &counted{lifetime: time.Hour, now: time.Now}
	rt := Transport(src, "aws is not on PATH")(http.DefaultTransport)
	for range 3 {
		if resp, _ := post(t, rt, srv.URL, "x"); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	if src.n != 1 || (*bodies)[2] != "Bearer tok-1 x" {
		t.Errorf("%d tokens made for 3 requests (%q), want 1", src.n, *bodies)
	}
}

func TestTransportRetries401Once(t *testing.T) {
	t.Parallel()
	srv, bodies := apiServer(t, "tok-1")
	src := &counted{lifetime: time.Hour, now: time.Now}
	rt := Transport(src, "aws is not on PATH")(http.DefaultTransport)
	resp, _ := post(t, rt, srv.URL, `{"kind":"EndpointSlice"}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d after a renewed token, want 200", resp.StatusCode)
	}
	want := []string{`Bearer tok-1 {"kind":"EndpointSlice"}`, `Bearer tok-2 {"kind":"EndpointSlice"}`}
	if strings.Join(*bodies, "\n") != strings.Join(want, "\n") {
		t.Errorf("the server received %q, want %q (the body sent again with a new token)", *bodies, want)
	}
	if src.renewed != 1 {
		t.Errorf("the source was renewed %d times, want 1", src.renewed)
	}
}

// A token refused, renewed and refused again is the API server's 401 with the
// credentials named, what to check on the cluster's cloud, and the cause that Refused
// finds; never the token.
func TestTransportGivesUpAfterASecond401(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cloud Cloud
		check []string
	}{
		{EKS, []string{"AWS secret access key is right", "an EKS access entry, or the aws-auth ConfigMap"}},
		{AKS, []string{"service principal or managed identity", "--server-id", "has a role on the cluster"}},
		{GKE, []string{"Google account", "IAM access to the cluster", "RBAC access"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.cloud), func(t *testing.T) {
			t.Parallel()
			srv, bodies := apiServer(t, "tok-1", "tok-2", "tok-3")
			src := &counted{lifetime: time.Hour, now: time.Now, cloud: tt.cloud}
			rt := Transport(src, "the plugin is not on PATH")(http.DefaultTransport)
			resp, body := post(t, rt, srv.URL, "x")
			if resp.StatusCode != http.StatusUnauthorized || len(*bodies) != 2 {
				t.Fatalf("status %d after %d requests, want 401 after 2", resp.StatusCode, len(*bodies))
			}
			want := append([]string{`"reason":"Unauthorized"`, string(tt.cloud) + " cluster demo", "with a test source",
				"(renewed once and refused again); check that", `"reason":"` + string(RefusedCause) + `"`}, tt.check...)
			for _, w := range want {
				if !strings.Contains(body, w) {
					t.Errorf("the 401 answer %s does not hold %q", body, w)
				}
			}
			if strings.Contains(body, "tok-") {
				t.Errorf("the 401 answer shows a token: %s", body)
			}
			var status metav1.Status
			if err := json.Unmarshal([]byte(body), &status); err != nil {
				t.Fatal(err)
			}
			if err := (&apierrors.StatusError{ErrStatus: status}); !Refused(err) {
				t.Errorf("Refused(%v) = false for the answer to a token made in process", err)
			}
		})
	}
	if Refused(apierrors.NewUnauthorized("Unauthorized")) || Refused(&CredentialsError{Err: errors.New("no")}) {
		t.Error("Refused is true for a 401 to another token, or for a token not made")
	}
}

func TestTransportTokenError(t *testing.T) {
	t.Parallel()
	srv, bodies := apiServer(t)
	src := &counted{lifetime: time.Hour, now: time.Now, err: errors.New("getting AWS credentials for the EKS cluster demo: no credentials")}
	rt := Transport(src, "aws is not on PATH")(http.DefaultTransport)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	_, err := rt.RoundTrip(req)
	if err == nil || !strings.Contains(err.Error(), "EKS cluster demo") {
		t.Errorf("RoundTrip error %v, want the source's", err)
	}
	// Through net/http's url.Error, it is still a 401 status, not an unreachable cluster.
	var status apierrors.APIStatus
	if !errors.As(&url.Error{Op: "Get", URL: srv.URL, Err: err}, &status) || !apierrors.IsUnauthorized(err) {
		t.Errorf("RoundTrip error %#v is not a 401 API status", err)
	}
	if len(*bodies) != 0 {
		t.Errorf("a request was sent without a token")
	}
	var made *CredentialsError
	if !errors.As(err, &made) || made.Renewal {
		t.Errorf("RoundTrip error %#v, want a CredentialsError of the first token", err)
	}
}

// A token refused whose renewal cannot be made is a CredentialsError that says so: the
// request was sent once.
func TestTransportRenewalError(t *testing.T) {
	t.Parallel()
	srv, bodies := apiServer(t, "tok-1")
	src := &counted{lifetime: time.Hour, now: time.Now}
	rt := Transport(src, "aws is not on PATH")(http.DefaultTransport)
	src.renewedHook = func() { src.err = errors.New("getting AWS credentials for the EKS cluster demo: expired") }
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	_, err := rt.RoundTrip(req)
	var made *CredentialsError
	if !errors.As(err, &made) || !made.Renewal || len(*bodies) != 1 {
		t.Errorf("RoundTrip error %#v after %d requests, want a CredentialsError of a renewal after 1", err, len(*bodies))
	}
}

func TestTransportLeavesExplicitAuthorization(t *testing.T) {
	t.Parallel()
	srv, bodies := apiServer(t)
	src := &counted{lifetime: time.Hour, now: time.Now}
	rt := Transport(src, "aws is not on PATH")(http.DefaultTransport)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	req.Header.Set("Authorization", "Bearer given")
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if src.n != 0 || (*bodies)[0] != "Bearer given " {
		t.Errorf("the transport replaced an explicit Authorization header: %q", *bodies)
	}
}

// newSource is New's source of p with o; it ends the test when New fails.
func newSource(t *testing.T, p Plugin, o Options) Source {
	t.Helper()
	src, err := New(p, o)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// tokenOf is the first token of newSource(t, p, o); it ends the test when none comes.
func tokenOf(t *testing.T, p Plugin, o Options) Token {
	t.Helper()
	return nextToken(t, newSource(t, p, o))
}

// nextToken is src's next token; it ends the test when none comes.
func nextToken(t *testing.T, src Source) Token {
	t.Helper()
	tok, err := src.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
