package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	p "github.com/pulumi/pulumi-go-provider"
	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	endpoints "github.com/endpoints-provider/pulumi-endpoints"
	"github.com/endpoints-provider/pulumi-endpoints/provider/google"
	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/interrupt"
	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
)

// Name is the package name; the plugin binary is pulumi-resource-<Name>.
const Name = "endpoints"

// errCanceled is the cause of contexts stopped by the engine's second Cancel call.
var errCanceled = errors.New("the operation was canceled by the engine")

// server holds the configured state behind the provider's gRPC methods.
type server struct {
	// cancelling is done once the engine first calls Cancel: operations not yet started
	// are refused and waits end, while requests already sent finish (see scope).
	cancelling      context.Context
	startCancelling context.CancelFunc
	// stopped is done once the engine calls Cancel again (it is about to kill the
	// provider) or New's context ends; every operation's context ends with it.
	stopped context.Context
	cancel  context.CancelFunc
	cancels atomic.Int32

	getenv func(string) string

	mu     sync.RWMutex
	config Config
	// kube is the Kubernetes resources, configured with config's Kubernetes part.
	kube *kube.Kubernetes
	// configured is the cluster the last Configure recorded, nil before one.
	configured *clusterRecord
	// sameCluster carries DiffConfig's new inputs to Configure (see identity.go).
	sameCluster sameClusterInputs

	resources resources
	functions map[tokens.Type]google.Function
}

// New returns the gRPC server the plugin serves (Serve's: pulumi-go-provider's server
// with what protocolServer adds), for tests and benchmarks that run the provider in
// their own process and call it as the engine does. There is no engine: the provider
// logs to slog's default logger. ctx bounds its whole life: when it ends, so does every
// operation in flight.
func New(ctx context.Context) rpc.ResourceProviderServer {
	srv, err := newServer(ctx, os.Getenv).rpcServer(nil)
	if err != nil {
		// pulumi-go-provider's server fails only to reach an engine, and there is none.
		panic(fmt.Sprintf("the provider's gRPC server: %v", err))
	}
	return srv
}

func newServer(ctx context.Context, getenv func(string) string) *server {
	s := &server{getenv: getenv, kube: kube.New(kube.Config{})}
	s.stopped, s.cancel = context.WithCancel(ctx)
	s.cancelling, s.startCancelling = context.WithCancel(s.stopped)
	s.resources = resources{byToken: map[tokens.Type]kube.Lifecycle{}, scope: s.scope}
	for token, r := range s.kube.Resources() {
		s.resources.byToken[tokens.Type(token)] = r
	}
	s.functions = google.Functions(func() google.Config { return s.currentConfig().Google })
	s.setConfig(Config{})
	return s
}

// provider lists the methods that serve each engine call.
func (s *server) provider() p.Provider {
	return p.Provider{
		Handshake: func(context.Context, p.HandshakeRequest) (p.HandshakeResponse, error) {
			return p.HandshakeResponse{SupportsAutonamingConfiguration: true}, nil
		},
		GetSchema:   s.getSchema,
		Cancel:      s.cancelAll,
		CheckConfig: s.checkConfigRedacted,
		DiffConfig:  s.diffConfigRedacted,
		Configure:   s.configureRedacted,
		Invoke:      s.invoke,
		Check:       s.resources.Check,
		Diff:        s.resources.Diff,
		Create:      s.resources.Create,
		Read:        s.resources.Read,
		Update:      s.resources.Update,
		Delete:      s.resources.Delete,
	}
}

// The configuration's calls, as the resources' (see resources.Check): the secret
// strings of the settings (a kubeconfig's contents, credentials) are said as [secret]
// in their logs, errors and failures.

func (s *server) checkConfigRedacted(ctx context.Context, req p.CheckRequest) (p.CheckResponse, error) {
	ctx = secret.With(ctx, secret.Values(req.Inputs, req.State)...)
	resp, err := s.checkConfig(ctx, req)
	for i, f := range resp.Failures {
		resp.Failures[i].Reason = secret.Text(ctx, f.Reason)
	}
	return resp, secret.Error(ctx, err)
}

func (s *server) diffConfigRedacted(ctx context.Context, req p.DiffRequest) (p.DiffResponse, error) {
	ctx = secret.With(ctx, secret.Values(req.State, req.OldInputs, req.Inputs)...)
	resp, err := s.diffConfig(ctx, req)
	return resp, secret.Error(ctx, err)
}

func (s *server) configureRedacted(ctx context.Context, req p.ConfigureRequest) error {
	ctx = secret.With(ctx, secret.Values(req.Args)...)
	return secret.Error(ctx, s.configure(ctx, req))
}

// scope derives an operation's context, or refuses the operation (named by what) once
// the engine has called Cancel: nothing new starts then. The context ends when the
// request's does or when the engine calls Cancel a second time (then with a cause
// that says so); the first Cancel only reaches the waits within (see package
// interrupt), so requests already sent finish within their own deadline
// (requestTimeout) and their results are recorded. Each distinct API-server warning
// within the scope is shown once.
//
// deprecations tells whether the operation may show that an API version is
// deprecated: such a warning is shown once in the provider's life (the engine starts
// the provider anew for each command, and for the preview and the update of `pulumi
// up` each) by the writes that take effect and by reads, never by previews or deletes
// (a destroy has nothing to migrate), and not at all with suppressDeprecationWarnings.
func (s *server) scope(ctx context.Context, deprecations bool, what string) (context.Context, func(), error) {
	ctx = interrupt.With(ctx, s.cancelling)
	if err := interrupt.NotStarted(ctx, what); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancelCause(s.kube.WarningScope(ctx, deprecations))
	stop := context.AfterFunc(s.stopped, func() { cancel(errCanceled) })
	return ctx, func() {
		stop()
		cancel(nil)
	}, nil
}

// cancelAll serves the engine's Cancel. The engine calls it on the user's first
// interrupt, then waits for the steps in flight; it calls it again when it closes the
// provider, after those steps or on a second interrupt, just before it kills the
// provider. So the first call starts cancelling (nothing new starts, requests in flight
// finish), and any later one stops every operation at once.
func (s *server) cancelAll(context.Context) error {
	if s.cancels.Add(1) == 1 {
		s.startCancelling()
		return nil
	}
	s.cancel()
	return nil
}

// invoke serves Invoke: the function of req.Token, with the secret strings of its
// arguments in its context and said as [secret] in its error and its failures (see
// package secret); the answer to arguments of which any is secret is all secret, as
// the SDKs make it.
func (s *server) invoke(ctx context.Context, req p.InvokeRequest) (p.InvokeResponse, error) {
	ctx = secret.With(ctx, secret.Values(req.Args)...)
	resp, err := s.invokeFunction(ctx, req)
	resp.Return = secret.Of(req.Args).Whole().Seal(resp.Return)
	for i, f := range resp.Failures {
		resp.Failures[i].Reason = secret.Text(ctx, f.Reason)
	}
	return resp, secret.Error(ctx, err)
}

func (s *server) invokeFunction(ctx context.Context, req p.InvokeRequest) (p.InvokeResponse, error) {
	fn, ok := s.functions[req.Token]
	if !ok {
		return p.InvokeResponse{}, fmt.Errorf("unknown function %q: pulumi-resource-%s %s serves %s",
			req.Token, Name, Version, served(s.functions))
	}
	ctx, done, err := s.scope(ctx, true, fmt.Sprintf("the lookup %s", req.Token))
	if err != nil {
		return p.InvokeResponse{}, err
	}
	defer done()
	// A lookup writes nothing, so there is nothing for it to finish: like a wait, it
	// stops at the first Cancel.
	ctx, stop := interrupt.Waiting(ctx)
	defer stop()
	return fn(ctx, req.Args)
}

// resources are the provider's resources by type token. Their methods serve the
// engine's resource calls: each passes the call on to the resource of the request's
// type, Create, Read, Update and Delete within an operation scope (see scope); Check
// and Diff pass as they are.
type resources struct {
	byToken map[tokens.Type]kube.Lifecycle
	scope   func(ctx context.Context, deprecations bool, what string) (context.Context, func(), error)
}

// get returns the resource of urn's type, or an error naming the types served.
func (rs resources) get(urn presource.URN) (kube.Lifecycle, error) {
	if r, ok := rs.byToken[urn.Type()]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("unknown resource type %q: pulumi-resource-%s %s serves %s",
		urn.Type(), Name, Version, served(rs.byToken))
}

// on runs call on the resource of urn's type.
func on[T any](rs resources, urn presource.URN, call func(kube.Lifecycle) (T, error)) (T, error) {
	r, err := rs.get(urn)
	if err != nil {
		var zero T
		return zero, err
	}
	return call(r)
}

// scoped runs call on the resource of urn's type within an operation scope: op names
// the operation in the error that refuses it, and deprecations tells whether it may
// say that an API version is deprecated (see scope). Outermost, so that a call the
// engine's Cancel refuses reaches nothing.
func scoped[T any](ctx context.Context, rs resources, urn presource.URN, op string, deprecations bool,
	call func(context.Context, kube.Lifecycle) (T, error),
) (T, error) {
	var zero T
	r, err := rs.get(urn)
	if err != nil {
		return zero, err
	}
	ctx, done, err := rs.scope(ctx, deprecations, fmt.Sprintf("the %s of %s %s", op, urn.Type().Name(), urn.Name()))
	if err != nil {
		return zero, err
	}
	defer done()
	return call(ctx, r)
}

// Every resource call carries the secret strings of its request's property values in
// its context, so that no log line says them (see package secret), and its error, the
// reasons of its partial state and its Check failures say [secret] in their place: the
// text leaves the plugin here.

func (rs resources) Check(ctx context.Context, req p.CheckRequest) (p.CheckResponse, error) {
	ctx = secret.With(ctx, secret.Values(req.Inputs, req.State)...)
	resp, err := on(rs, req.Urn, func(r kube.Lifecycle) (p.CheckResponse, error) { return r.Check(ctx, req) })
	for i, f := range resp.Failures {
		resp.Failures[i].Reason = secret.Text(ctx, f.Reason)
	}
	return resp, secret.Error(ctx, err)
}

func (rs resources) Diff(ctx context.Context, req p.DiffRequest) (p.DiffResponse, error) {
	ctx = secret.With(ctx, secret.Values(req.State, req.OldInputs, req.Inputs)...)
	resp, err := on(rs, req.Urn, func(r kube.Lifecycle) (p.DiffResponse, error) { return r.Diff(ctx, req) })
	return resp, secret.Error(ctx, err)
}

func (rs resources) Create(ctx context.Context, req p.CreateRequest) (p.CreateResponse, error) {
	ctx = secret.With(ctx, secret.Values(req.Properties)...)
	resp, err := scoped(ctx, rs, req.Urn, "create", !req.DryRun, func(ctx context.Context, r kube.Lifecycle) (p.CreateResponse, error) {
		return r.Create(ctx, req)
	})
	redactPartial(ctx, resp.PartialState)
	return resp, secret.Error(ctx, err)
}

func (rs resources) Read(ctx context.Context, req p.ReadRequest) (p.ReadResponse, error) {
	ctx = secret.With(ctx, secret.Values(req.Properties, req.Inputs)...)
	resp, err := scoped(ctx, rs, req.Urn, "read", true, func(ctx context.Context, r kube.Lifecycle) (p.ReadResponse, error) {
		return r.Read(ctx, req)
	})
	redactPartial(ctx, resp.PartialState)
	return resp, secret.Error(ctx, err)
}

func (rs resources) Update(ctx context.Context, req p.UpdateRequest) (p.UpdateResponse, error) {
	ctx = secret.With(ctx, secret.Values(req.State, req.OldInputs, req.Inputs)...)
	resp, err := scoped(ctx, rs, req.Urn, "update", !req.DryRun, func(ctx context.Context, r kube.Lifecycle) (p.UpdateResponse, error) {
		return r.Update(ctx, req)
	})
	redactPartial(ctx, resp.PartialState)
	return resp, secret.Error(ctx, err)
}

func (rs resources) Delete(ctx context.Context, req p.DeleteRequest) error {
	ctx = secret.With(ctx, secret.Values(req.Properties, req.OldInputs)...)
	_, err := scoped(ctx, rs, req.Urn, "delete", false, func(ctx context.Context, r kube.Lifecycle) (struct{}, error) {
		return struct{}{}, r.Delete(ctx, req)
	})
	return secret.Error(ctx, err)
}

// redactPartial says [secret] for the secret strings of ctx in the reasons of a
// partial state (nil: none), which the engine shows.
func redactPartial(ctx context.Context, state *p.InitializationFailed) {
	if state != nil {
		secret.Texts(ctx, state.Reasons)
	}
}

// served lists the tokens of m, for errors about tokens the provider does not serve.
func served[V any](m map[tokens.Type]V) string {
	if len(m) == 0 {
		return "no tokens of that kind"
	}
	names := make([]string, 0, len(m))
	for t := range m {
		names = append(names, string(t))
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// getSchema serves schema.json with the provider's version stamped in.
func (s *server) getSchema(context.Context, p.GetSchemaRequest) (p.GetSchemaResponse, error) {
	doc, err := versionedSchema()
	if err != nil {
		return p.GetSchemaResponse{}, err
	}
	return p.GetSchemaResponse{Schema: doc}, nil
}

var versionedSchema = sync.OnceValues(func() (string, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(endpoints.Schema(), &doc); err != nil {
		return "", fmt.Errorf("internal error: embedded schema.json does not decode: %w", err)
	}
	version, err := json.Marshal(Version)
	if err != nil {
		return "", fmt.Errorf("internal error: encoding the version: %w", err)
	}
	doc["version"] = version
	out, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("internal error: encoding the schema: %w", err)
	}
	return string(out), nil
})
