package kube

import (
	"context"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// Lifecycle is one resource's lifecycle as the provider dispatches it.
type Lifecycle interface {
	Check(context.Context, p.CheckRequest) (p.CheckResponse, error)
	Diff(context.Context, p.DiffRequest) (p.DiffResponse, error)
	Create(context.Context, p.CreateRequest) (p.CreateResponse, error)
	Read(context.Context, p.ReadRequest) (p.ReadResponse, error)
	Update(context.Context, p.UpdateRequest) (p.UpdateResponse, error)
	Delete(context.Context, p.DeleteRequest) error
}

// Resource is a resource of this package: its lifecycle on a cluster, and the answers
// Wrap serves it with besides.
type Resource interface {
	Lifecycle
	// previewOffline is what a preview shows when the API server cannot be reached
	// (see reachability): the outputs the checked inputs alone tell.
	previewOffline(inputs property.Map) property.Map
	// rendered is the resource's render backend, which writes manifests to target
	// instead of reaching a cluster (see RenderTarget).
	rendered(target RenderTarget) Lifecycle
}

var (
	_ Resource = (*EndpointSlice)(nil)
	_ Resource = (*EndpointsList)(nil)
)

// ClientFunc returns the cluster client, building it on first use.
type ClientFunc func(context.Context) (*Client, error)

// Options are the provider settings the resources read.
type Options struct {
	// DeletePolicy is the propagation policy of deletes.
	DeletePolicy DeletePolicy
	// DeleteUnreachable lets refresh and destroy drop objects whose cluster is
	// unreachable; SkipUpdateUnreachable lets updates and reads keep the last state then.
	DeleteUnreachable, SkipUpdateUnreachable bool
	// Render, when it names a directory, has the resources write manifests there
	// instead of reaching a cluster (see RenderTarget).
	Render RenderTarget
}

// OptionsFunc returns the settings in force.
type OptionsFunc func() Options

// clusterResource is what both resources hold: the client, their settings and the kind of object
// they write.
type clusterResource struct {
	client  ClientFunc
	options OptionsFunc
	kind    kind
	// recorded are the objects the state records, as Check learns them.
	recorded *recordedObjects
}

func newClusterResource(client ClientFunc, options OptionsFunc, k kind) clusterResource {
	return clusterResource{client: client, options: options, kind: k, recorded: newRecordedObjects()}
}

// connectAs returns the API calls of connect, for the resource urn: the objects they
// create carry its URN, and they adopt no object the state records for it (see
// kindClient.create).
func (b clusterResource) connectAs(ctx context.Context, urn resource.URN) (kindClient, error) {
	o, err := b.connect(ctx)
	o.owner, o.inState = urn, b.recorded.of(urn)
	return o, err
}

// connect returns the API calls for the resource's kind on the configured cluster.
func (b clusterResource) connect(ctx context.Context) (kindClient, error) {
	c, err := b.client(ctx)
	if err != nil {
		return kindClient{}, err
	}
	return kindClient{kind: b.kind, client: c}, nil
}

// defaultNamespace is the namespace for objects that name none. Check must work
// without a reachable cluster, and even with a kubeconfig that cannot be read yet (a
// preview whose provider configuration is unknown): then it is Kubernetes' default
// (validate.DefaultNamespace), and Create reports the configuration problem. In
// render mode no kubeconfig is read: the render target says (see RenderTarget).
func (b clusterResource) defaultNamespace(ctx context.Context) string {
	if target := b.options().Render; target.Rendering() {
		return target.namespace()
	}
	c, err := b.client(ctx)
	if err != nil {
		p.GetLogger(ctx).Debugf("no Kubernetes client, so the default namespace is %s: %v", validate.DefaultNamespace, err)
		return validate.DefaultNamespace
	}
	return c.Namespace
}

// checkResult turns a validation result into Check's answer, logging its warnings.
func checkResult(ctx context.Context, res validate.Result) (property.Map, []p.CheckFailure) {
	log := p.GetLogger(ctx)
	for _, w := range res.Warnings {
		log.Warning(w)
	}
	failures := make([]p.CheckFailure, 0, len(res.Failures))
	for _, f := range res.Failures {
		failures = append(failures, p.CheckFailure{Property: f.Path, Reason: f.Reason})
	}
	return res.Inputs, failures
}

// engineTimeout converts an engine timeout in seconds (0: none given).
func engineTimeout(seconds float64) time.Duration {
	return time.Duration(seconds * float64(time.Second))
}
