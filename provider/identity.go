package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// Cluster identity: a provider's objects live on one cluster. CheckConfig records in
// the provider's inputs which cluster the configuration reaches (recordCluster);
// DiffConfig compares the old record with the new one (compareClusters) and replaces
// the provider, and with it every object it manages, only when the cluster moved;
// Configure hands the record to the client, which falls back to the recorded
// kubeconfig when the one named now reaches another cluster or cannot be read.

// Reserved keys CheckConfig adds to the provider's inputs (see recordCluster).
const (
	// clusterKey records the cluster the configuration reaches: its server and CA
	// ("server", "ca") and the clusterIdentifier in force ("identifier").
	clusterKey = "__cluster"
	// kubeconfigKey records, secret, the kubeconfig of the context in use with the
	// files it names inlined, unless the kubeconfig setting holds the contents.
	kubeconfigKey = "__kubeconfig"
)

// clusterKeys are the settings that decide which cluster the provider reaches.
var clusterKeys = []string{"kubeconfig", "context", "clusterIdentifier", "renderDirectory"}

// clusterRecord is what the provider's inputs record of the cluster.
type clusterRecord struct {
	kube.ClusterRecord
	// Identifier is the clusterIdentifier in force (the setting or its environment
	// variable), empty when none.
	Identifier string
	// Directory is the render directory in force, cleaned (filepath.Clean), when the
	// provider writes manifests instead of reaching a cluster.
	Directory string
}

// known tells whether anything is recorded.
func (r clusterRecord) known() bool {
	return r.Directory != "" || r.Identifier != "" || r.Cluster.Known()
}

// target names where the record's objects are, for messages.
func (r clusterRecord) target() string {
	switch {
	case r.Directory != "":
		return fmt.Sprintf("the render directory %q", r.Directory)
	case r.Identifier != "":
		return fmt.Sprintf("the cluster %q", r.Identifier)
	case r.Cluster.Known():
		return "the cluster " + r.Cluster.String()
	}
	return "a cluster"
}

// recordCluster adds the cluster the configuration reaches to the checked inputs.
// Nothing is recorded while a setting that decides the cluster is unknown (a preview)
// or when the kubeconfig cannot be read (a program that uses only the Google
// lookups needs none; the client reports the problem when it is first used).
func recordCluster(ctx context.Context, inputs property.Map, cfg Config) property.Map {
	for _, key := range clusterKeys {
		if slices.Contains(cfg.Unknown, key) {
			return inputs
		}
	}
	if dir := cfg.Kube.RenderDirectory; dir != "" {
		// Render mode: the objects are in the directory; no kubeconfig is read.
		record := property.NewMap(map[string]property.Value{"directory": property.New(filepath.Clean(dir))})
		return inputs.Set(clusterKey, property.New(record))
	}
	fields := map[string]property.Value{}
	if cfg.Kube.ClusterIdentifier != "" {
		fields["identifier"] = property.New(cfg.Kube.ClusterIdentifier)
	}
	if rec, err := kube.Resolve(cfg.Kube); err != nil {
		secret.Logger(ctx).Debugf("no cluster recorded from the kubeconfig: %v", err)
	} else {
		fields["server"] = property.New(rec.Cluster.Server)
		if rec.Cluster.CA != "" {
			fields["ca"] = property.New(rec.Cluster.CA)
		}
		if rec.Kubeconfig != "" {
			inputs = inputs.Set(kubeconfigKey, property.New(rec.Kubeconfig).WithSecret(true))
		}
	}
	if len(fields) == 0 {
		return inputs
	}
	return inputs.Set(clusterKey, property.New(property.NewMap(fields)))
}

// clusterRecordOf reads what recordCluster recorded.
func clusterRecordOf(inputs property.Map) clusterRecord {
	var rec clusterRecord
	cluster := inputs.Get(clusterKey)
	if cluster.IsMap() {
		get := func(k string) string {
			if v := cluster.AsMap().Get(k); v.IsString() {
				return v.AsString()
			}
			return ""
		}
		rec.Identifier = get("identifier")
		rec.Directory = get("directory")
		rec.Cluster = kube.Cluster{Server: get("server"), CA: get("ca")}
	}
	if v := inputs.Get(kubeconfigKey); v.IsString() && rec.Cluster.Known() {
		rec.Kubeconfig = v.AsString()
	}
	return rec
}

// clusterVerdict is the outcome of comparing two recorded clusters.
type clusterVerdict int

const (
	// clusterUnknown: the records cannot be compared (one has neither a
	// clusterIdentifier nor a server the other can be held against).
	clusterUnknown clusterVerdict = iota
	// clusterSame: both records name the same cluster.
	clusterSame
	// clusterMoved: the records name different clusters.
	clusterMoved
)

// compareClusters compares the recorded clusters, and says why in words. The
// clusterIdentifiers decide when both configurations have one; otherwise the servers
// and CAs, when both are known.
func compareClusters(old, cur clusterRecord) (verdict clusterVerdict, why string) {
	switch {
	case old.Directory == "" && cur.Directory == "":
	case old.Directory == cur.Directory:
		return clusterSame, "the render directory is the same"
	case cur.known() || old.Directory == "":
		return clusterMoved, fmt.Sprintf("the objects' target changed from %s to %s", old.target(), cur.target())
	default:
		// From a directory to a cluster not known yet (a preview), or whose kubeconfig
		// cannot be read.
		return clusterUnknown, ""
	}
	switch {
	case old.Identifier != "" && cur.Identifier != "":
		if old.Identifier != cur.Identifier {
			return clusterMoved, fmt.Sprintf("the clusterIdentifier changed from %q to %q", old.Identifier, cur.Identifier)
		}
		return clusterSame, "the clusterIdentifier is the same"
	case old.Cluster.Known() && cur.Cluster.Known():
		if !old.Cluster.Same(cur.Cluster) {
			return clusterMoved, fmt.Sprintf("the kubeconfig now reaches cluster %s, no longer %s", cur.Cluster, old.Cluster)
		}
		return clusterSame, "the cluster is the same"
	}
	return clusterUnknown, ""
}

// diffConfig reports changed keys as updates. The provider is replaced, and with it
// every object it manages (created on the new cluster, deleted from the old one with
// the old configuration), only when the cluster changes. Changes of credentials,
// user or context names, file paths or proxy settings that reach the same cluster
// are no change at all: the new inputs are handed to the Configure that follows
// (see sameClusterInputs).
func (s *server) diffConfig(ctx context.Context, req p.DiffRequest) (p.DiffResponse, error) {
	olds := req.OldInputs
	if _, ok := olds.GetOk(clusterKey); !ok {
		olds = req.State
	}
	oldCluster, newCluster := clusterRecordOf(olds), clusterRecordOf(req.Inputs)
	verdict, why := compareClusters(oldCluster, newCluster)
	diff := p.DiffResponse{DetailedDiff: map[string]p.PropertyDiff{}}
	hidden := false
	for key, kind := range changedConfigKeys(req.OldInputs, req.Inputs) {
		if slices.Contains(clusterKeys, key) {
			if verdict == clusterSame && key != "clusterIdentifier" {
				hidden = true
				continue
			}
			if verdict == clusterMoved {
				kind = kube.Replacing(kind)
			}
		}
		diff.DetailedDiff[key] = p.PropertyDiff{Kind: kind, InputDiff: true}
	}
	if verdict == clusterMoved {
		if !anyReplaces(diff.DetailedDiff) {
			// The kubeconfig the settings name (or KUBECONFIG) reaches another cluster, or
			// PULUMI_ENDPOINTS_RENDER_DIRECTORY names another target.
			key := "kubeconfig"
			if newCluster.Directory != "" || oldCluster.Directory != "" {
				key = "renderDirectory"
			}
			diff.DetailedDiff[key] = p.PropertyDiff{Kind: p.UpdateReplace, InputDiff: true}
		}
		s.warnMoved(ctx, oldCluster, newCluster, why)
	}
	diff.HasChanges = len(diff.DetailedDiff) > 0
	if hidden && !diff.HasChanges {
		s.sameCluster.offer(req.OldInputs, req.Inputs)
	}
	return diff, nil
}

// changedConfigKeys returns, for each configuration key of schema.json whose value
// differs between olds and news, the kind of the change.
func changedConfigKeys(olds, news property.Map) map[string]p.DiffKind {
	changed := map[string]p.DiffKind{}
	for key := range spec.MustLoad().Config.Variables {
		old, hadOld := olds.GetOk(key)
		cur, hasNew := news.GetOk(key)
		switch {
		case hadOld && !hasNew:
			changed[key] = p.Delete
		case !hadOld && hasNew:
			changed[key] = p.Add
		case hadOld && !old.Equals(cur):
			changed[key] = p.Update
		}
	}
	return changed
}

// anyReplaces reports whether any change of a diff replaces the provider.
func anyReplaces(diffs map[string]p.PropertyDiff) bool {
	for _, d := range diffs {
		if kube.Replaces(d.Kind) {
			return true
		}
	}
	return false
}

// warnMoved says that the provider is replaced because its cluster changed. The
// engine asks the provider's DiffConfig once for the provider itself, before the
// provider is configured with the new inputs, and then again, of the new provider,
// for every object it manages: the warning is shown by the first only, so a stack
// of many objects shows it once.
func (s *server) warnMoved(ctx context.Context, old, cur clusterRecord, why string) {
	s.mu.RLock()
	configured := s.configured
	s.mu.RUnlock()
	if configured != nil {
		if verdict, _ := compareClusters(*configured, cur); verdict == clusterSame {
			return // configured for the new cluster already: said when the provider was diffed
		}
	}
	if old.Directory != "" || cur.Directory != "" {
		secret.Logger(ctx).Warningf("%s: the provider is replaced, and with it every object it manages: each is "+
			"written to %s and then removed from %s", why, cur.target(), old.target())
		return
	}
	secret.Logger(ctx).Warningf("%s: the provider is replaced, and with it every object it manages: each is "+
		"created on the new cluster and then deleted from the old one (if it is the same cluster under another "+
		"address or CA, set the clusterIdentifier setting to the same value before and after the change instead)", why)
}

// sameClusterInputs hands new inputs from DiffConfig to Configure. When DiffConfig
// finds only changes that keep the cluster (rotated credentials, renamed contexts),
// it reports no change, so the engine configures the provider with the old inputs;
// Configure then uses the new ones instead, and the new credentials serve.
type sameClusterInputs struct {
	mu      sync.Mutex
	pending *configPair
}

// configPair is a provider's old and new inputs.
type configPair struct{ olds, news property.Map }

// offer records news as the inputs to use when Configure is called with olds.
func (h *sameClusterInputs) offer(olds, news property.Map) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pending = &configPair{olds: olds, news: news}
}

// claim returns the inputs Configure uses for args: the offered new inputs when args
// hold the offered old ones, else args. Either way the offer is spent. Secret marks do
// not count: the engine sends DiffConfig the old inputs with their secrets revealed,
// and Configure with them marked (the recorded kubeconfig is a secret).
func (h *sameClusterInputs) claim(args property.Map) property.Map {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pending != nil && revealed(property.New(args)).Equals(revealed(property.New(h.pending.olds))) {
		args = h.pending.news
	}
	h.pending = nil
	return args
}

// revealed is v without secret marks and dependencies, to compare what values hold.
func revealed(v property.Value) property.Value {
	switch {
	case v.IsArray():
		out := make([]property.Value, 0, v.AsArray().Len())
		for _, e := range v.AsArray().All {
			out = append(out, revealed(e))
		}
		return property.New(out)
	case v.IsMap():
		out := make(map[string]property.Value, v.AsMap().Len())
		for k, e := range v.AsMap().All {
			out[k] = revealed(e)
		}
		return property.New(out)
	default:
		return v.WithSecret(false).WithDependencies(nil)
	}
}
