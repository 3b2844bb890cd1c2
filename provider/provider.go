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

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	endpoints "github.com/endpoints-provider/pulumi-endpoints"
	"github.com/endpoints-provider/pulumi-endpoints/provider/google"
	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// Name is the package name; the plugin binary is pulumi-resource-<Name>.
const Name = "endpoints"

// Resource is the lifecycle of one resource type.
type Resource = kube.Lifecycle

// Function is one invoke.
type Function func(context.Context, property.Map) (p.InvokeResponse, error)

// errCanceled is the cause of contexts stopped by the engine's Cancel call.
var errCanceled = errors.New("the operation was canceled by the engine")

// server holds the configured state behind the provider's gRPC methods.
type server struct {
	// stopped is done once the engine calls Cancel; every operation's context ends with it.
	stopped context.Context
	cancel  context.CancelFunc

	getenv func(string) string

	mu     sync.RWMutex
	config Config
	kube   func() (*kube.Client, error)
	// fallbackOnce reports once that the client reaches the recorded cluster.
	fallbackOnce *sync.Once
	// unchanged is set by a DiffConfig that found only changes that keep the cluster
	// (rotated credentials, renamed contexts): the engine then configures this
	// instance with the old inputs, and configure uses the new ones instead.
	unchanged *configPair
	// configured is the cluster the last Configure recorded, nil before one.
	configured *clusterRecord

	resources map[tokens.Type]Resource
	functions map[tokens.Type]Function
}

// New returns the provider. ctx bounds its whole life: when it ends, so does every
// operation in flight.
func New(ctx context.Context) p.Provider {
	return newServer(ctx, os.Getenv).provider()
}

func newServer(ctx context.Context, getenv func(string) string) *server {
	s := &server{getenv: getenv}
	s.stopped, s.cancel = context.WithCancel(ctx)
	s.resources = map[tokens.Type]Resource{
		spec.EndpointSliceToken: kube.Unreachable(kube.NewEndpointSlice(s.kubeClient, s.kubeOptions),
			s.kubeClient, s.kubeOptions),
		spec.EndpointsListToken: kube.Unreachable(kube.NewEndpointsList(s.kubeClient, s.kubeOptions),
			s.kubeClient, s.kubeOptions),
	}
	s.functions = map[tokens.Type]Function{}
	for token, fn := range google.Functions(func() google.Config { return s.currentConfig().Google }) {
		s.functions[token] = fn
	}
	s.setConfig(Config{})
	return s
}

func (s *server) provider() p.Provider {
	return p.Provider{
		Handshake: func(context.Context, p.HandshakeRequest) (p.HandshakeResponse, error) {
			return p.HandshakeResponse{SupportsAutonamingConfiguration: true}, nil
		},
		GetSchema:   s.getSchema,
		Cancel:      s.cancelAll,
		CheckConfig: s.checkConfig,
		DiffConfig:  s.diffConfig,
		Configure:   s.configure,
		Invoke:      s.invoke,
		Check: func(ctx context.Context, req p.CheckRequest) (p.CheckResponse, error) {
			r, err := s.resource(req.Urn.Type())
			if err != nil {
				return p.CheckResponse{}, err
			}
			return r.Check(ctx, req)
		},
		Diff: func(ctx context.Context, req p.DiffRequest) (p.DiffResponse, error) {
			r, err := s.resource(req.Urn.Type())
			if err != nil {
				return p.DiffResponse{}, err
			}
			return r.Diff(ctx, req)
		},
		Create: func(ctx context.Context, req p.CreateRequest) (p.CreateResponse, error) {
			r, err := s.resource(req.Urn.Type())
			if err != nil {
				return p.CreateResponse{}, err
			}
			ctx, done := s.scope(ctx)
			defer done()
			return r.Create(ctx, req)
		},
		Read: func(ctx context.Context, req p.ReadRequest) (p.ReadResponse, error) {
			r, err := s.resource(req.Urn.Type())
			if err != nil {
				return p.ReadResponse{}, err
			}
			ctx, done := s.scope(ctx)
			defer done()
			return r.Read(ctx, req)
		},
		Update: func(ctx context.Context, req p.UpdateRequest) (p.UpdateResponse, error) {
			r, err := s.resource(req.Urn.Type())
			if err != nil {
				return p.UpdateResponse{}, err
			}
			ctx, done := s.scope(ctx)
			defer done()
			return r.Update(ctx, req)
		},
		Delete: func(ctx context.Context, req p.DeleteRequest) error {
			r, err := s.resource(req.Urn.Type())
			if err != nil {
				return err
			}
			ctx, done := s.scope(ctx)
			defer done()
			return r.Delete(ctx, req)
		},
	}
}

// scope derives an operation's context: it ends with the request or with Cancel,
// whichever comes first, and shows each distinct API-server warning once.
func (s *server) scope(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(kube.WithWarningScope(ctx))
	stop := context.AfterFunc(s.stopped, func() { cancel(errCanceled) })
	return ctx, func() {
		stop()
		cancel(nil)
	}
}

func (s *server) cancelAll(context.Context) error {
	s.cancel()
	return nil
}

func (s *server) resource(t tokens.Type) (Resource, error) {
	if r, ok := s.resources[t]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("unknown resource type %q: pulumi-resource-%s %s serves %s",
		t, Name, Version, served(s.resources))
}

func (s *server) invoke(ctx context.Context, req p.InvokeRequest) (p.InvokeResponse, error) {
	fn, ok := s.functions[req.Token]
	if !ok {
		return p.InvokeResponse{}, fmt.Errorf("unknown function %q: pulumi-resource-%s %s serves %s",
			req.Token, Name, Version, served(s.functions))
	}
	ctx, done := s.scope(ctx)
	defer done()
	return fn(ctx, req.Args)
}

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

// checkConfig validates the configuration and records, under reserved keys, which
// cluster the kubeconfig reaches (see identity.go): DiffConfig compares it, and the
// provider configured from an old state reaches the cluster its objects are on.
func (s *server) checkConfig(ctx context.Context, req p.CheckRequest) (p.CheckResponse, error) {
	cfg, failures, warnings := parseConfig(req.Inputs, s.getenv)
	for _, w := range warnings {
		p.GetLogger(ctx).Warning(w)
	}
	inputs := markSecrets(req.Inputs)
	for _, key := range []string{clusterKey, kubeconfigKey} {
		inputs = inputs.Delete(key)
	}
	if len(failures) == 0 {
		inputs = recordCluster(inputs, cfg)
	}
	return p.CheckResponse{Inputs: inputs, Failures: failures}, nil
}

// diffConfig reports changed keys as updates. The provider is replaced, and with it
// every object it manages (created on the new cluster, deleted from the old one with
// the old configuration), only when the cluster changes. Changes of credentials,
// user or context names, file paths or proxy settings that reach the same cluster
// are no change at all.
func (s *server) diffConfig(ctx context.Context, req p.DiffRequest) (p.DiffResponse, error) {
	olds := req.OldInputs
	if _, ok := olds.GetOk(clusterKey); !ok {
		olds = req.State
	}
	oldCluster, newCluster := recordedCluster(olds), recordedCluster(req.Inputs)
	moved, why := clusterChanged(oldCluster, newCluster)
	same := !moved && why != ""
	diff := p.DiffResponse{DetailedDiff: map[string]p.PropertyDiff{}}
	hidden := false
	for key := range spec.MustLoad().Config.Variables {
		old, hadOld := req.OldInputs.GetOk(key)
		cur, hasNew := req.Inputs.GetOk(key)
		var kind p.DiffKind
		switch {
		case hadOld && !hasNew:
			kind = p.Delete
		case !hadOld && hasNew:
			kind = p.Add
		case hadOld && !old.Equals(cur):
			kind = p.Update
		default:
			continue
		}
		if slices.Contains(clusterKeys, key) {
			if same && key != "clusterIdentifier" {
				hidden = true
				continue
			}
			if moved {
				kind = kube.Replacing(kind)
			}
		}
		diff.DetailedDiff[key] = p.PropertyDiff{Kind: kind, InputDiff: true}
	}
	if moved {
		replaced := false
		for _, d := range diff.DetailedDiff {
			replaced = replaced || kube.Replaces(d.Kind)
		}
		if !replaced {
			// The kubeconfig the settings name (or KUBECONFIG) reaches another cluster.
			diff.DetailedDiff["kubeconfig"] = p.PropertyDiff{Kind: p.UpdateReplace, InputDiff: true}
		}
		s.warnMoved(ctx, newCluster, why)
	}
	diff.HasChanges = len(diff.DetailedDiff) > 0
	if hidden && !diff.HasChanges {
		s.mu.Lock()
		s.unchanged = &configPair{olds: req.OldInputs, news: req.Inputs}
		s.mu.Unlock()
	}
	return diff, nil
}

// warnMoved says that the provider is replaced because its cluster changed. The
// engine asks the provider's DiffConfig once for the provider itself, before the
// provider is configured with the new inputs, and then again, of the new provider,
// for every object it manages: the warning is shown by the first only, so a stack
// of many objects shows it once.
func (s *server) warnMoved(ctx context.Context, cur clusterRecord, why string) {
	s.mu.RLock()
	configured := s.configured
	s.mu.RUnlock()
	if configured != nil {
		if moved, comparable := clusterChanged(*configured, cur); !moved && comparable != "" {
			return // configured for the new cluster already: said when the provider was diffed
		}
	}
	p.GetLogger(ctx).Warningf("%s: the provider is replaced, and with it every object it manages: each is "+
		"created on the new cluster and then deleted from the old one (if it is the same cluster under another "+
		"address or CA, set the clusterIdentifier setting to the same value before and after the change instead)", why)
}

// configPair is a provider's old and new inputs.
type configPair struct{ olds, news property.Map }

func (s *server) configure(ctx context.Context, req p.ConfigureRequest) error {
	args := req.Args
	s.mu.Lock()
	if s.unchanged != nil && args.Equals(s.unchanged.olds) {
		args = s.unchanged.news
	}
	s.unchanged = nil
	s.mu.Unlock()
	cfg, failures, warnings := parseConfig(args, s.getenv)
	for _, w := range warnings {
		p.GetLogger(ctx).Warning(w)
	}
	if len(failures) > 0 {
		reasons := make([]string, len(failures))
		for i, f := range failures {
			reasons[i] = f.Reason
		}
		return fmt.Errorf("invalid provider configuration: %s", strings.Join(reasons, "; "))
	}
	rec := recordedCluster(args)
	cfg.Kube.Recorded = rec.Recorded
	s.setConfig(cfg)
	s.mu.Lock()
	s.configured = &rec
	s.mu.Unlock()
	return nil
}

// setConfig installs a configuration and forgets the clients built from the previous
// one; new clients are built on first use.
func (s *server) setConfig(cfg Config) {
	userAgent := fmt.Sprintf("pulumi-resource-%s/%s", Name, Version)
	cfg.Kube.UserAgent = userAgent
	cfg.Google.UserAgent = userAgent
	s.mu.Lock()
	defer s.mu.Unlock()
	s.config = cfg
	kubeConfig := cfg.Kube
	s.kube = sync.OnceValues(func() (*kube.Client, error) { return kube.NewClient(kubeConfig) })
	s.fallbackOnce = &sync.Once{}
}

// kubeClient returns the Kubernetes client, building it on first use. When it
// reaches the recorded cluster instead of the one the kubeconfig names now, it says
// so once.
func (s *server) kubeClient(ctx context.Context) (*kube.Client, error) {
	s.mu.RLock()
	get, once := s.kube, s.fallbackOnce
	s.mu.RUnlock()
	c, err := get()
	if err == nil && c.Fallback != "" {
		once.Do(func() { p.GetLogger(ctx).Warning(c.Fallback) })
	}
	return c, err
}

// kubeOptions returns the Kubernetes resources' settings in force.
func (s *server) kubeOptions() kube.Options {
	policy := kube.DeletePolicy(s.currentConfig().Kube.DeletePropagationPolicy)
	if policy == "" {
		policy = kube.DefaultDeletePolicy
	}
	cfg := s.currentConfig().Kube
	return kube.Options{
		DeletePolicy:          policy,
		DeleteUnreachable:     cfg.DeleteUnreachable,
		SkipUpdateUnreachable: cfg.SkipUpdateUnreachable,
	}
}

// currentConfig returns the configuration in force.
func (s *server) currentConfig() Config {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.config
}
