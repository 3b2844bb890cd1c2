package cloudauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"golang.org/x/oauth2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
)

// Token is a bearer token for a cluster and the time it stops being accepted.
type Token struct {
	Value  string
	Expiry time.Time
}

// Source makes tokens for one cluster of a cloud. Describe names the cloud, the
// cluster and the credentials used, never a secret.
type Source interface {
	Token(ctx context.Context) (Token, error)
	Describe() string
	Cloud() Cloud
}

// Options are what New needs beyond the plugin.
type Options struct {
	// Server is the cluster's API server URL, named in errors.
	Server string
	// HTTPClient, when set, carries the requests for credentials (tests point it at
	// local doubles that serve TLS with a certificate of their own).
	HTTPClient *http.Client
	// Getenv reads the process environment; nil means os.Getenv.
	Getenv func(string) string
	// Google, when set, makes the tokens of a GKE cluster instead of Application
	// Default Credentials: a source of access tokens for scopes and a description of
	// its credentials, never a secret (the provider's own Google settings, see
	// google.TokenSource).
	Google func(ctx context.Context, scopes []string) (oauth2.TokenSource, string, error)
}

// getenv reads a variable as the plugin would see it: the exec block's env entries
// over the process environment.
func (o Options) getenv(p Plugin, name string) string {
	if v, ok := p.Env[name]; ok {
		return v
	}
	if o.Getenv != nil {
		return o.Getenv(name)
	}
	return os.Getenv(name)
}

// New returns the in-process source of tokens of p. It reads nothing and makes no
// request: the credentials are found when the first token is asked for (on Google
// Cloud that may ask the metadata server). Only a kubelogin login mode that needs a
// person is refused at once.
func New(p Plugin, o Options) (Source, error) {
	l := &lazySource{p: p, o: o}
	switch p.Cloud {
	case GKE:
		l.describe = p.Where(o.Server) + " with Google Application Default Credentials"
		if o.Google != nil {
			l.describe = p.Where(o.Server) + " with the provider's Google credentials"
		}
	case EKS:
		l.describe = fmt.Sprintf("%s with AWS credentials%s", p.Where(o.Server), profileOf(p))
	case AKS:
		if !containsFold(aksLogins, p.Login) {
			return nil, interactiveLogin(p, o)
		}
		l.describe = fmt.Sprintf("%s with kubelogin's %s login", p.Where(o.Server), p.Login)
	default:
		return nil, fmt.Errorf("internal error: no built-in credentials for cloud %q", p.Cloud)
	}
	return l, nil
}

// lazySource finds the credentials on the first token asked for; a failure is not kept.
type lazySource struct {
	p        Plugin
	o        Options
	describe string

	mu  sync.Mutex
	src Source
}

func (l *lazySource) source(ctx context.Context) (Source, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.src == nil {
		src, err := build(ctx, l.p, l.o)
		if err != nil {
			return nil, err
		}
		l.src = src
	}
	return l.src, nil
}

func (l *lazySource) Token(ctx context.Context) (Token, error) {
	src, err := l.source(ctx)
	if err != nil {
		return Token{}, err
	}
	return src.Token(ctx)
}

func (l *lazySource) Cloud() Cloud { return l.p.Cloud }

func (l *lazySource) Describe() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.src != nil {
		return l.src.Describe()
	}
	return l.describe
}

func (l *lazySource) renew() {
	l.mu.Lock()
	src := l.src
	l.mu.Unlock()
	if r, ok := src.(renewer); ok {
		r.renew()
	}
}

// renewBefore is how long before its expiry a token is replaced: a minute, or a
// quarter of the token's life when that is shorter.
func renewBefore(made, expiry time.Time) time.Duration {
	return min(time.Minute, expiry.Sub(made)/4)
}

// cache keeps a source's token until shortly before it expires (see renewBefore).
// Concurrent requests for an expired token wait for one renewal.
type cache struct {
	src Source
	now func() time.Time

	mu   sync.Mutex
	tok  Token
	made time.Time
}

func (c *cache) token(ctx context.Context) (Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.tok.Value != "" && now.Before(c.tok.Expiry.Add(-renewBefore(c.made, c.tok.Expiry))) {
		return c.tok, nil
	}
	tok, err := c.src.Token(ctx)
	if err != nil {
		return Token{}, err
	}
	c.tok, c.made = tok, now
	return tok, nil
}

// reset drops the token refused, unless another has replaced it meanwhile.
func (c *cache) reset(refused string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok.Value == refused {
		c.tok = Token{}
		if r, ok := c.src.(renewer); ok {
			r.renew()
		}
	}
}

// renewer is a source that keeps tokens or credentials of its own: renew drops them,
// so that the next token is made anew.
type renewer interface{ renew() }

// Transport returns a wrapper of round trippers that sends the tokens of src,
// renewed before they expire. A request the server answers 401 is sent once more
// with a new token (when its body can be sent again); a second 401 is returned with
// the source's description and what to check on the cloud added to the API server's
// message (see Refused). A token that cannot be made is a CredentialsError. The first token made
// is reported once, through the provider's logger of the request's context, with why
// it is made in process (reason) and from which credentials.
func Transport(src Source, reason string) func(http.RoundTripper) http.RoundTripper {
	c := &cache{src: src, now: time.Now}
	reported := &sync.Once{}
	return func(next http.RoundTripper) http.RoundTripper {
		return &transport{next: next, cache: c, reason: reason, reported: reported}
	}
}

type transport struct {
	next     http.RoundTripper
	cache    *cache
	reason   string
	reported *sync.Once
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return t.next.RoundTrip(req)
	}
	resp, used, err := t.send(req, req.Body, false)
	if used != "" {
		t.reported.Do(func() {
			secret.Logger(req.Context()).Infof("kubernetes credentials: the token of the %s is made in the provider's process (%s)",
				t.cache.src.Describe(), t.reason)
		})
	}
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	var body io.ReadCloser = http.NoBody
	if req.Body != nil && req.Body != http.NoBody {
		if req.GetBody == nil {
			return resp, nil
		}
		b, err := req.GetBody()
		if err != nil {
			return resp, nil //nolint:nilerr // the first answer stands when the body cannot be sent again
		}
		body = b
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
	t.cache.reset(used)
	resp, _, err = t.send(req, body, true)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	return annotate(resp, t.cache.src), nil
}

// WrappedRoundTripper is the transport under this one (client-go's debugging and
// connection management look through it).
func (t *transport) WrappedRoundTripper() http.RoundTripper { return t.next }

// send sends req with body and the cached token, and returns the token used. renewal
// says that the cluster refused the token sent before.
func (t *transport) send(req *http.Request, body io.ReadCloser, renewal bool) (*http.Response, string, error) {
	tok, err := t.cache.token(req.Context())
	if err != nil {
		if body != nil {
			_ = body.Close()
		}
		return nil, "", &CredentialsError{Err: err, Renewal: renewal}
	}
	r := req.Clone(req.Context())
	r.Body = body
	r.Header.Set("Authorization", "Bearer "+tok.Value)
	resp, err := t.next.RoundTrip(r)
	return resp, tok.Value, err
}

// annotate adds who made the refused token, and what to check on the cloud (see
// refusedAdvice), to the message of a 401 answer that is a Kubernetes Status, so that
// the error the user sees names the credentials; a cause of type RefusedCause marks it
// (see Refused). The token itself is never said.
func annotate(resp *http.Response, src Source) *http.Response {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	if err != nil {
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		return resp
	}
	var status map[string]any
	if json.Unmarshal(raw, &status) == nil && status["kind"] == "Status" {
		describe := src.Describe()
		msg, _ := status["message"].(string)
		status["message"] = fmt.Sprintf("%s: the cluster refused the token made in the provider's process for %s "+
			"(renewed once and refused again); %s", msg, describe, refusedAdvice(src.Cloud()))
		details, _ := status["details"].(map[string]any)
		if details == nil {
			details = map[string]any{}
		}
		causes, _ := details["causes"].([]any)
		details["causes"] = append(causes, map[string]any{"reason": string(RefusedCause), "message": describe})
		status["details"] = details
		if b, err := json.Marshal(status); err == nil {
			raw = b
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	resp.ContentLength = int64(len(raw))
	resp.Header.Del("Content-Length")
	return resp
}

// refusedAdvice is what to check on the cloud when its cluster refuses a token made
// from the credentials in process, fresh or renewed: a 401 says that the cluster does
// not take the token for any user of its own.
func refusedAdvice(c Cloud) string {
	switch c {
	case EKS:
		return "check that the AWS secret access key is right and that the AWS identity is mapped to a user of " +
			"the cluster (an EKS access entry, or the aws-auth ConfigMap)"
	case AKS:
		return "check that the service principal or managed identity is of the cluster's Microsoft Entra tenant, " +
			"that the kubeconfig's --server-id is the cluster's, and that the identity has a role on the cluster " +
			"(an Azure Kubernetes Service RBAC role, or a Kubernetes role binding of its object ID)"
	default:
		return "check that the Google account is enabled and has IAM access to the cluster (a role such as " +
			"roles/container.developer in the cluster's project) or RBAC access in it"
	}
}

// RefusedCause is the type of the cause that marks the 401 answer to a token made in
// the provider's process, renewed once and refused again (see Transport).
const RefusedCause metav1.CauseType = "TokenMadeInProcessRefused"

// Refused tells whether err is the cluster's 401 answer to a token made in the
// provider's process, renewed once and refused again: its message names the
// credentials and what to check on the cloud.
func Refused(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	s := status.Status()
	return s.Code == http.StatusUnauthorized && s.Details != nil &&
		slices.ContainsFunc(s.Details.Causes, func(c metav1.StatusCause) bool { return c.Type == RefusedCause })
}

// CredentialsError is a token that could not be made. It is a Kubernetes API status
// (401 Unauthorized), not a transport failure: the cluster was not asked, and is not
// unreachable. Renewal says that the token was to replace one the cluster refused: the
// request was sent once, with that token, and not taken.
type CredentialsError struct {
	Err     error
	Renewal bool
}

func (e *CredentialsError) Error() string { return "kubernetes credentials: " + e.Err.Error() }

func (e *CredentialsError) Unwrap() error { return e.Err }

// Status is the error as the API server would say it.
func (e *CredentialsError) Status() metav1.Status {
	return metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnauthorized, Reason: metav1.StatusReasonUnauthorized, Message: e.Error(),
	}
}
