package kube

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// unreachableOnce remembers, per client, that its API server did not answer, so that
// a preview warns once and stops trying.
type unreachableOnce struct {
	once sync.Once
	down atomic.Bool
}

// unreachable tells whether err means the API server could not be reached at all:
// the connection was refused or reset, the name did not resolve, or no answer came
// within the request timeout. An answer from the server (any status), a certificate
// the client rejects, and a cancel by the engine are not.
func unreachable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return false
	}
	var (
		verify    *tls.CertificateVerificationError
		authority x509.UnknownAuthorityError
		host      x509.HostnameError
		invalid   x509.CertificateInvalidError
	)
	if errors.As(err, &verify) || errors.As(err, &authority) || errors.As(err, &host) || errors.As(err, &invalid) {
		return false
	}
	var transport *url.Error
	return errors.As(err, &transport)
}

// answerLost tells whether err is a transport failure on a connection that was made
// and then broke (reset, closed, the server killed) before the answer came: unlike a
// refused connection, an unknown host or a timeout, the request may have reached the
// server and taken effect, and the server may well be there for the next one.
func answerLost(err error) bool {
	if !unreachable(err) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var timeout interface{ Timeout() bool }
	timedOut := errors.As(err, &timeout) && timeout.Timeout()
	return !notSent(err) && !timedOut
}

// Wrap is r as the provider serves it: r, whose lifecycle runs on the store of the
// target in force (see store), inside the one decorator every resource has,
// reachability: the answers for a cluster that cannot be reached (offline previews
// from r.previewOffline, the deleteUnreachable and skipUpdateUnreachable settings). A
// render directory reaches no cluster, so there it has nothing to answer for. (The
// provider runs Create, Read, Update and Delete in an operation scope around it: the
// engine's Cancel, the warnings shown once.)
func Wrap(r Resource) Lifecycle {
	return reachability{Lifecycle: r, offline: r.previewOffline, k: r.shared()}
}

// reachability gives a resource's cluster lifecycle the provider's answers for a
// cluster that cannot be reached:
//   - a preview falls back to Check's offline verdict, with one warning per
//     configuration naming the server;
//   - refresh (Read) and destroy (Delete) fail naming the server and the object, or,
//     with deleteUnreachable, drop the object from the state with a warning; with
//     skipUpdateUnreachable, a Read keeps the last state with a warning, as an update
//     does (the refreshBeforeUpdate setting has `pulumi up` read its objects first);
//   - an update fails likewise, or, with skipUpdateUnreachable, keeps the last state
//     with a warning.
type reachability struct {
	Lifecycle
	// offline is the preview's answer from the checked inputs alone.
	offline func(inputs property.Map) property.Map
	k       *Kubernetes
}

// down tells whether a preview already found the cluster unreachable. A render
// directory is never down, and builds no client.
func (r reachability) down(ctx context.Context) bool {
	if r.k.Options().Render.Rendering() {
		return false
	}
	c, err := r.k.Client(ctx)
	return err == nil && c.unreachable.down.Load()
}

// previewFallback reports the unreachable cluster once and tells whether the preview
// falls back to the offline answer.
func (r reachability) previewFallback(ctx context.Context, err error) bool {
	if !unreachable(err) {
		return false
	}
	c, cerr := r.k.Client(ctx)
	if cerr != nil {
		return false
	}
	c.unreachable.down.Store(true)
	c.unreachable.once.Do(func() {
		p.GetLogger(ctx).Warningf("the Kubernetes API server %s is unreachable (%v); the preview shows only what "+
			"the provider checks offline, not the server's verdict", c.REST.Host, err)
	})
	return true
}

// unreachableError names the server in an unreachable cluster's error, with what the user can do.
// An answer lost on a broken connection is told apart: the server was reached, and
// the write may have taken effect.
func (r reachability) unreachableError(ctx context.Context, err error, hint string) error {
	if !unreachable(err) {
		return err
	}
	server := "of the provider's kubeconfig"
	if c, cerr := r.k.Client(ctx); cerr == nil {
		server = c.REST.Host
	}
	if answerLost(err) {
		return fmt.Errorf("the connection to the Kubernetes API server %s broke before its answer came: %w; "+
			"the request may have taken effect: run `pulumi up` again, it reads the object before it writes", server, err)
	}
	return fmt.Errorf("the Kubernetes API server %s is unreachable: %w; %s", server, err, hint)
}

// clusterGone tells whether err means the cluster cannot be reached at all, the case the
// deleteUnreachable and skipUpdateUnreachable settings are for.
func clusterGone(err error) bool {
	return unreachable(err) && !answerLost(err)
}

// The hints of an unreachable cluster's errors. destroy and refresh configure the
// provider with the settings recorded by the last update unless they run the program
// (--run-program), so a setting made by `pulumi config set` reaches them only then;
// the environment variables reach every command.
const (
	dropHint = "if the cluster is gone for good, drop its objects from the state: run the command again with " +
		"PULUMI_ENDPOINTS_DELETE_UNREACHABLE=true in its environment, or set the provider's deleteUnreachable " +
		"setting (`pulumi config set endpoints:deleteUnreachable true` for the default provider) and run " +
		"`pulumi destroy --run-program` or `pulumi refresh --run-program` (without --run-program, destroy and " +
		"refresh use the provider settings recorded by the last update)"
	// keepHint is what a Read adds to dropHint: the refreshBeforeUpdate setting has
	// `pulumi up`, preview and destroy read objects back first, with the settings of the
	// last update, so the environment variable is what reaches that read.
	keepHint = "; or, to keep the last state until the cluster is back, run the command again with " +
		"PULUMI_ENDPOINTS_SKIP_UPDATE_UNREACHABLE=true in its environment"
	skipHint = "to keep the last state until the cluster is back, set the provider's skipUpdateUnreachable setting " +
		"(`pulumi config set endpoints:skipUpdateUnreachable true` for the default provider) or " +
		"PULUMI_ENDPOINTS_SKIP_UPDATE_UNREACHABLE=true in the environment, and run `pulumi up` again"
)

func (r reachability) Create(ctx context.Context, req p.CreateRequest) (p.CreateResponse, error) {
	if req.DryRun && r.down(ctx) {
		return p.CreateResponse{Properties: r.offline(req.Properties)}, nil
	}
	resp, err := r.Lifecycle.Create(ctx, req)
	if req.DryRun && r.previewFallback(ctx, err) {
		return p.CreateResponse{Properties: r.offline(req.Properties)}, nil
	}
	err = r.unreachableError(ctx, err, "the create is retried by the next `pulumi up`")
	resp.PartialState = restated(resp.PartialState, err)
	return resp, err
}

func (r reachability) Update(ctx context.Context, req p.UpdateRequest) (p.UpdateResponse, error) {
	if req.DryRun && r.down(ctx) {
		return p.UpdateResponse{Properties: r.offline(req.Inputs)}, nil
	}
	resp, err := r.Lifecycle.Update(ctx, req)
	switch {
	case req.DryRun && r.previewFallback(ctx, err):
		return p.UpdateResponse{Properties: r.offline(req.Inputs)}, nil
	case !req.DryRun && clusterGone(err) && r.k.Options().SkipUpdateUnreachable:
		r.warnKept(ctx, err, "skipped", ", then `pulumi up` applies the change")
		state := resp.Properties
		if state.Len() == 0 {
			state = req.State
		}
		return p.UpdateResponse{Properties: state}, nil
	}
	err = r.unreachableError(ctx, err, skipHint)
	resp.PartialState = restated(resp.PartialState, err)
	return resp, err
}

func (r reachability) Read(ctx context.Context, req p.ReadRequest) (p.ReadResponse, error) {
	resp, err := r.Lifecycle.Read(ctx, req)
	switch {
	case clusterGone(err) && r.k.Options().DeleteUnreachable:
		r.warnDropped(ctx, err)
		return p.ReadResponse{}, nil
	case clusterGone(err) && r.k.Options().SkipUpdateUnreachable && req.Properties.Len() > 0:
		r.warnKept(ctx, err, "kept", "")
		return p.ReadResponse{ID: req.ID, Properties: req.Properties, Inputs: req.Inputs}, nil
	}
	return resp, r.unreachableError(ctx, err, dropHint+keepHint)
}

// warnDropped warns that deleteUnreachable drops an object whose cluster could not be
// reached from the state.
func (r reachability) warnDropped(ctx context.Context, err error) {
	p.GetLogger(ctx).Warningf("%v; deleteUnreachable is set, so the object is dropped from the state "+
		"(it may still exist on the cluster)", r.unreachableError(ctx, err, "dropped"))
}

// warnKept warns that skipUpdateUnreachable keeps the last state of an object whose
// cluster could not be reached; note is unreachableError's, then what follows the
// refresh once the cluster is back.
func (r reachability) warnKept(ctx context.Context, err error, note, then string) {
	p.GetLogger(ctx).Warningf("%v; skipUpdateUnreachable is set, so the last state is kept: "+
		"run `pulumi refresh` once the cluster is back%s", r.unreachableError(ctx, err, note), then)
}

func (r reachability) Delete(ctx context.Context, req p.DeleteRequest) error {
	err := r.Lifecycle.Delete(ctx, req)
	if clusterGone(err) && r.k.Options().DeleteUnreachable {
		r.warnDropped(ctx, err)
		return nil
	}
	return r.unreachableError(ctx, err, dropHint)
}
