package kube

import (
	"context"
	"sync"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/lazy"
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

// Kubernetes is what the package's resources share: the settings in force, which the
// provider installs at each Configure ([Kubernetes.Configure]), and the client built
// from them on first use (see package lazy: a failed build is not kept), so a program
// that never declares a Kubernetes resource never needs a kubeconfig. The provider
// serves its resources ([Kubernetes.EndpointSlice], [Kubernetes.EndpointsList]).
type Kubernetes struct {
	mu  sync.RWMutex
	cfg *Config
	// fallbackOnce reports once per configuration that the client reaches the
	// recorded cluster.
	fallbackOnce *sync.Once
	client       lazy.Value[*Config, *Client]

	slice *EndpointSlice
	list  *EndpointsList
}

// New returns the package's resources, configured with cfg until Configure.
func New(cfg Config) *Kubernetes {
	k := &Kubernetes{}
	k.Configure(cfg)
	k.slice = &EndpointSlice{newClusterResource(k, endpointSliceKind)}
	k.list = &EndpointsList{newClusterResource(k, endpointsKind)}
	return k
}

// Configure installs the settings in force; the client of the previous ones is built
// again on first use.
func (k *Kubernetes) Configure(cfg Config) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.cfg, k.fallbackOnce = &cfg, &sync.Once{}
}

// EndpointSlice is the EndpointSlice resource as the provider serves it (see Wrap).
func (k *Kubernetes) EndpointSlice() Lifecycle { return Wrap(k.slice) }

// EndpointsList is the EndpointsList resource as the provider serves it (see Wrap).
func (k *Kubernetes) EndpointsList() Lifecycle { return Wrap(k.list) }

// Client returns the client of the settings in force, building it on first use. When
// it reaches the recorded cluster instead of the one the kubeconfig names now, it
// says so once.
func (k *Kubernetes) Client(ctx context.Context) (*Client, error) {
	k.mu.RLock()
	cfg, once := k.cfg, k.fallbackOnce
	k.mu.RUnlock()
	c, err := k.client.Get(cfg, func() (*Client, error) { return NewClient(*cfg) }, nil)
	if err == nil && c.Fallback != "" {
		once.Do(func() { p.GetLogger(ctx).Warning(c.Fallback) })
	}
	return c, err
}

// Options returns the settings the resources read, as in force.
func (k *Kubernetes) Options() Options {
	k.mu.RLock()
	cfg := *k.cfg
	k.mu.RUnlock()
	policy := DeletePolicy(cfg.DeletePropagationPolicy)
	if policy == "" {
		policy = DefaultDeletePolicy()
	}
	return Options{
		DeletePolicy:          policy,
		DeleteUnreachable:     cfg.DeleteUnreachable,
		SkipUpdateUnreachable: cfg.SkipUpdateUnreachable,
		Render:                RenderTarget{Directory: cfg.RenderDirectory, Namespace: cfg.Namespace},
	}
}

// Resource is a resource of this package: its lifecycle on a cluster, and the answers
// Wrap serves it with besides.
type Resource interface {
	Lifecycle
	// previewOffline is what a preview shows when the API server cannot be reached
	// (see reachability): the outputs the checked inputs alone tell.
	previewOffline(inputs property.Map) property.Map
	// shared is what the package's resources share.
	shared() *Kubernetes
}

var (
	_ Resource = (*EndpointSlice)(nil)
	_ Resource = (*EndpointsList)(nil)
)

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

// clusterResource is what both resources hold: what they share, and the kind of
// object they write.
type clusterResource struct {
	k    *Kubernetes
	kind kind
	// inState are the objects the state holds for each resource, as Check learns them.
	inState *stateObjects
}

func newClusterResource(k *Kubernetes, kd kind) clusterResource {
	return clusterResource{k: k, kind: kd, inState: newStateObjects()}
}

func (b clusterResource) shared() *Kubernetes { return b.k }

// client returns the cluster client, building it on first use.
func (b clusterResource) client(ctx context.Context) (*Client, error) { return b.k.Client(ctx) }

// options returns the settings in force.
func (b clusterResource) options() Options { return b.k.Options() }

// connectAs returns the API calls of connect, for the resource urn: the objects they
// create carry its URN, and they adopt no object the state records for it (see
// kindClient.create).
func (b clusterResource) connectAs(ctx context.Context, urn resource.URN) (kindClient, error) {
	o, err := b.connect(ctx)
	o.owner, o.inState = urn, b.inState.of(urn)
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

// lookup tells whether a Read looks up an object the stack does not record: a
// resource get (`EndpointSlice.get(name, id)` in a program) or an import. The engine
// sends the ID alone for an import, and for a get the ID with the properties the
// program passed, as both inputs and state: none from the SDKs' get methods, and null
// values carry no state either. A refresh always sends the state it records: a
// resource's outputs are never empty.
func lookup(req p.ReadRequest) bool {
	for _, v := range req.Properties.All {
		if !v.IsNull() {
			return false
		}
	}
	return true
}
