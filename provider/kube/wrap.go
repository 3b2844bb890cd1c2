package kube

import (
	"context"

	p "github.com/pulumi/pulumi-go-provider"
)

// Wrap is r as the provider serves it: r inside the decorators that every resource
// has, in this order, outermost first. (The provider runs Create, Read, Update and
// Delete in an operation scope around it: the engine's Cancel, the warnings shown
// once.)
//
//  1. targeted: each call goes to the target the settings name when it comes, r's
//     render backend (r.rendered) when they name a render directory, else the
//     cluster. Above reachability: a render directory reaches no cluster, so there
//     is no unreachable server to answer for.
//  2. reachability: the answers for a cluster that cannot be reached, offline
//     previews (r.previewOffline) and the deleteUnreachable and
//     skipUpdateUnreachable settings, around the calls that reach the cluster.
//  3. r, on the cluster.
func Wrap(r Resource) Lifecycle {
	cluster := reachability{Lifecycle: r, offline: r.previewOffline, k: r.shared()}
	return targeted{cluster: cluster, render: r.rendered, k: r.shared()}
}

// targeted passes each call on to the backend of the target in force.
type targeted struct {
	cluster Lifecycle
	render  func(RenderTarget) Lifecycle
	k       *Kubernetes
}

// on returns the backend of the target in force.
func (t targeted) on() Lifecycle {
	if target := t.k.Options().Render; target.Rendering() {
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
