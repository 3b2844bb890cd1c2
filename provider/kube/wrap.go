package kube

import (
	"context"
	"fmt"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// Scope opens an operation of the provider, named by what: the context it runs in and
// the function that ends it, or an error that refuses it (the engine is cancelling).
// deprecations tells whether the operation may say that an API version is deprecated.
type Scope func(ctx context.Context, deprecations bool, what string) (context.Context, func(), error)

// Wrap is r as the provider serves it: r inside the decorators that every resource
// has, in this order, outermost first.
//
//  1. scoped: Create, Read, Update and Delete run in an operation scope (see Scope);
//     Check and Diff pass as they are. Outermost, so that whatever serves the call
//     below, on either target, runs within the scope and a call the engine's Cancel
//     refuses reaches nothing.
//  2. targeted: each call goes to the target the settings name when it comes, r's
//     render backend (r.rendered) when they name a render directory, else the
//     cluster. Above reachability: a render directory reaches no cluster, so there
//     is no unreachable server to answer for.
//  3. reachability: the answers for a cluster that cannot be reached, offline
//     previews (r.previewOffline) and the deleteUnreachable and
//     skipUpdateUnreachable settings, around the calls that reach the cluster.
//  4. r, on the cluster.
func Wrap(r Resource, client ClientFunc, options OptionsFunc, scope Scope) Lifecycle {
	cluster := reachability{Lifecycle: r, offline: r.previewOffline, client: client, options: options}
	return scoped{Lifecycle: targeted{cluster: cluster, render: r.rendered, options: options}, scope: scope}
}

// scoped runs Create, Read, Update and Delete in a scope.
type scoped struct {
	Lifecycle
	scope Scope
}

// operation names an engine call on the resource urn, for the error that refuses it.
func operation(op string, urn resource.URN) string {
	return fmt.Sprintf("the %s of %s %s", op, urn.Type().Name(), urn.Name())
}

func (r scoped) Create(ctx context.Context, req p.CreateRequest) (p.CreateResponse, error) {
	ctx, done, err := r.scope(ctx, !req.DryRun, operation("create", req.Urn))
	if err != nil {
		return p.CreateResponse{}, err
	}
	defer done()
	return r.Lifecycle.Create(ctx, req)
}

func (r scoped) Read(ctx context.Context, req p.ReadRequest) (p.ReadResponse, error) {
	ctx, done, err := r.scope(ctx, true, operation("read", req.Urn))
	if err != nil {
		return p.ReadResponse{}, err
	}
	defer done()
	return r.Lifecycle.Read(ctx, req)
}

func (r scoped) Update(ctx context.Context, req p.UpdateRequest) (p.UpdateResponse, error) {
	ctx, done, err := r.scope(ctx, !req.DryRun, operation("update", req.Urn))
	if err != nil {
		return p.UpdateResponse{}, err
	}
	defer done()
	return r.Lifecycle.Update(ctx, req)
}

func (r scoped) Delete(ctx context.Context, req p.DeleteRequest) error {
	ctx, done, err := r.scope(ctx, false, operation("delete", req.Urn))
	if err != nil {
		return err
	}
	defer done()
	return r.Lifecycle.Delete(ctx, req)
}

// targeted passes each call on to the backend of the target in force.
type targeted struct {
	cluster Lifecycle
	render  func(RenderTarget) Lifecycle
	options OptionsFunc
}

// on returns the backend of the target in force.
func (t targeted) on() Lifecycle {
	if target := t.options().Render; target.Rendering() {
		return t.render(target)
	}
	return t.cluster
}

func (t targeted) Check(ctx context.Context, req p.CheckRequest) (p.CheckResponse, error) {
	return t.on().Check(ctx, req)
}

func (t targeted) Diff(ctx context.Context, req p.DiffRequest) (p.DiffResponse, error) {
	return t.on().Diff(ctx, req)
}

func (t targeted) Create(ctx context.Context, req p.CreateRequest) (p.CreateResponse, error) {
	return t.on().Create(ctx, req)
}

func (t targeted) Read(ctx context.Context, req p.ReadRequest) (p.ReadResponse, error) {
	return t.on().Read(ctx, req)
}

func (t targeted) Update(ctx context.Context, req p.UpdateRequest) (p.UpdateResponse, error) {
	return t.on().Update(ctx, req)
}

func (t targeted) Delete(ctx context.Context, req p.DeleteRequest) error {
	return t.on().Delete(ctx, req)
}
