package e2e

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	rpcplugin "github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/dynamic"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/seeded"
)

// The generated List test: for each kind, a seeded random population of objects in
// fresh namespaces, made through client-go (names short, of words and digits, or long
// up to the 253 characters of a name; labels from a small vocabulary; on some, the
// managed-by label of a Kubernetes controller, or of another manager), then random
// queries (namespace, labelSelector, fieldSelector, includeManaged, page size, limit),
// each paged through over gRPC with its continuation tokens to the end, as
// `pulumi do <type> list --all` does. An oracle selects from the population with the
// API server's own parsers (labels.Parse, fields.ParseSelector), and every listing must
// hold:
//
//   - the selected objects, each once and nothing else; with a limit, min(limit,
//     selected) of them;
//   - pages of exactly the page size asked (kube.DefaultListPageSize when none is),
//     but the last, which holds no more;
//   - IDs and names of the documented form (docs/guides/resources.md), and a Read of
//     the first ID alone, as `pulumi import` makes it, finds that very object (its
//     uid).
//
// LIST_SEED picks the population and the queries (default defaultListSeed); every
// failure prints the command that runs the same seed again.

const (
	defaultListSeed = 42
	// genQueries is how many queries each kind's population is listed with.
	genQueries = 25
	// genRunLabel is on every object of a population, with a value of that population
	// alone. A query of every namespace requires it in its label selector: the API server
	// then lists only the population, so the oracle stays exact, pages and limits
	// included. Filtering the results afterwards would not do: the objects of other
	// tests (and the API server's default/kubernetes, which List leaves out of its page)
	// would count in the pages and the limit.
	genRunLabel = "listgen-run"
	// genOtherManager is a managed-by value no Kubernetes controller writes: its objects
	// are listed.
	genOtherManager = "operator.example.com"
)

// genKind is a kind List lists, as the generated test makes and selects its objects.
type genKind struct {
	name     string
	token    string
	resource schema.GroupVersionResource
	create   func(t *testing.T, cp *controlplane.ControlPlane, ns, name string, labels map[string]string)
	// managedBy is the label Kubernetes' controllers mark their objects of the kind
	// with, and controllers its values that List leaves out unless includeManaged.
	managedBy   string
	controllers []string
	// id is the documented ID of the object ns/name.
	id func(ns, name string) string
}

var genKinds = []genKind{{
	name: "EndpointSlice", token: spec.EndpointSliceToken, resource: controlplane.SlicesResource, create: outsideSlice,
	managedBy:   "endpointslice.kubernetes.io/managed-by",
	controllers: []string{"endpointslice-controller.k8s.io", "endpointslicemirroring-controller.k8s.io"},
	id:          func(ns, name string) string { return ns + "/" + name },
}, {
	name: "EndpointsList", token: spec.EndpointsListToken, resource: controlplane.EndpointsResource, create: outsideEndpoints,
	managedBy:   "endpoints.kubernetes.io/managed-by",
	controllers: []string{"endpoint-controller"},
	id:          func(ns, name string) string { return ns + "?fieldSelector=metadata.name%3D" + name },
}}

// genLabelValues is the label vocabulary of the populations and the selectors.
var genLabelValues = map[string][]string{"tier": {"web", "api", "db"}, "track": {"stable", "canary"}, "zone": {"a", "b", "c"}}

func TestListGenerated(t *testing.T) {
	t.Parallel()
	seed := seeded.FromEnv(t, "LIST_SEED", defaultListSeed)
	for i, k := range genKinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			t.Logf("LIST_SEED=%d", seed) // shown with any failure
			cp := controlplane.Shared(t)
			began := time.Now()
			g := &genRun{t: t, seed: seed, kind: k}
			for range 3 {
				g.namespaces = append(g.namespaces, cp.Namespace(t, "listgen"))
			}
			g.run = g.namespaces[0]
			g.populate(cp, genStream(seed, i, 0))
			made := time.Since(began)
			g.p = listPlugin(t, cp.Kubeconfig())
			for j := range genQueries {
				g.check(j, g.newQuery(genStream(seed, i, j+1)))
			}
			if stored := storedUIDs(t, cp, k, g.run); !maps.Equal(stored, g.uids()) {
				t.Errorf("the population changed while it was listed (-made +stored):\n%s", cmp.Diff(g.uids(), stored))
			}
			t.Logf("%d objects made in %v; %d queries, %d selecting some, %d listed over several pages; "+
				"%d List calls, %d Reads; in %v", len(g.pop), made.Round(time.Millisecond), genQueries, g.selecting,
				g.multiPage, g.calls, g.reads, time.Since(began).Round(time.Millisecond))
		})
	}
}

// genStream is the random stream of a kind's population (n 0) or of its query n-1.
func genStream(seed uint64, kind, n int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(kind)<<32|uint64(n))) //nolint:gosec // G404: seeded test data, not secrets
}

// genRun is one kind's population and what its queries found.
type genRun struct {
	t          *testing.T
	seed       uint64
	kind       genKind
	namespaces []string
	run        string // genRunLabel's value
	pop        []genObject
	p          *plugin.Plugin
	// Tallies for the log: queries that selected some object, listings of several
	// pages, List calls, Reads.
	selecting, multiPage, calls, reads int
}

// genObject is one object of a population.
type genObject struct {
	namespace, name string
	labels          map[string]string
	uid             types.UID
}

// populate makes 24 to 30 objects in the run's namespaces. Names repeat across
// namespaces (a pool of 10, and some of their own); the first objects carry each
// controller's managed-by value, so every population has them.
func (g *genRun) populate(cp *controlplane.ControlPlane, r *rand.Rand) {
	g.t.Helper()
	pool := make([]string, 10)
	for i := range pool {
		pool[i] = genName(r)
	}
	taken := map[string]bool{}
	for i := range 24 + r.IntN(7) {
		o := genObject{namespace: g.namespaces[r.IntN(len(g.namespaces))], labels: genLabels(r)}
		for o.name == "" || taken[o.namespace+"/"+o.name] {
			o.name = pool[r.IntN(len(pool))]
			if r.IntN(4) == 0 {
				o.name = genName(r)
			}
		}
		taken[o.namespace+"/"+o.name] = true
		o.labels[genRunLabel] = g.run
		switch n := r.IntN(10); {
		case i < len(g.kind.controllers):
			o.labels[g.kind.managedBy] = g.kind.controllers[i]
		case n < 3:
			o.labels[g.kind.managedBy] = g.kind.controllers[r.IntN(len(g.kind.controllers))]
		case n < 4:
			o.labels[g.kind.managedBy] = genOtherManager
		}
		g.kind.create(g.t, cp, o.namespace, o.name, o.labels)
		g.pop = append(g.pop, o)
	}
	stored := storedUIDs(g.t, cp, g.kind, g.run)
	for i, o := range g.pop {
		if g.pop[i].uid = stored[o.namespace+"/"+o.name]; g.pop[i].uid == "" {
			g.t.Fatalf("%s %s/%s made but not stored", g.kind.name, o.namespace, o.name)
		}
	}
}

// uids is the population's uids by namespace/name.
func (g *genRun) uids() map[string]types.UID {
	m := map[string]types.UID{}
	for _, o := range g.pop {
		m[o.namespace+"/"+o.name] = o.uid
	}
	return m
}

// storedUIDs lists the objects of kind k the API server stores with genRunLabel run, by
// namespace/name.
func storedUIDs(t *testing.T, cp *controlplane.ControlPlane, k genKind, run string) map[string]types.UID {
	t.Helper()
	list, err := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(k.resource).List(t.Context(),
		metav1.ListOptions{LabelSelector: genRunLabel + "=" + run})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]types.UID{}
	for _, o := range list.Items {
		m[o.GetNamespace()+"/"+o.GetName()] = o.GetUID()
	}
	return m
}

// genName draws an object name: short, words and digits joined by dashes, or long (64
// to 253 characters, the most a name may have) with dashes and dots.
func genName(r *rand.Rand) string {
	var name string
	switch r.IntN(3) {
	case 0:
		name = genChars(r, 1+r.IntN(3))
	case 1:
		parts := make([]string, 1+r.IntN(3))
		for i := range parts {
			parts[i] = []string{"web", "api", "db", "v2", strconv.Itoa(r.IntN(100))}[r.IntN(5)]
		}
		name = strings.Join(parts, "-")
	default:
		n := 64 + r.IntN(190)
		if r.IntN(3) == 0 {
			n = validation.DNS1123SubdomainMaxLength
		}
		name = genLongName(r, n)
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		panic(fmt.Sprintf("the generator drew the name %q, which is no object name: %v", name, errs))
	}
	return name
}

// genLongName draws a name of n characters: runs of letters and digits joined by
// dashes, and some dots.
func genLongName(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte("---."[r.IntN(4)])
		}
		b.WriteString(genChars(r, 1+r.IntN(12)))
	}
	name := []byte(b.String()[:n])
	if last := name[n-1]; last == '-' || last == '.' {
		name[n-1] = 'z' // the character before a dash or dot is a letter or digit
	}
	return string(name)
}

// genChars draws n lowercase letters and digits.
func genChars(r *rand.Rand, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// genLabels draws labels from genLabelValues: each key with a chance of 3 in 5.
func genLabels(r *rand.Rand) map[string]string {
	m := map[string]string{}
	for _, key := range slices.Sorted(maps.Keys(genLabelValues)) {
		if r.IntN(5) < 3 {
			values := genLabelValues[key]
			m[key] = values[r.IntN(len(values))]
		}
	}
	return m
}

// genQuery is one List query and how it is paged.
type genQuery struct {
	namespace, labelSelector, fieldSelector string // "": absent
	includeManaged                          string // "true", "false", or "": absent
	pageSize, limit                         int64  // 0: none
	// countdown sends, as `pulumi do ... list --count` does, what is left of the limit
	// on each call; otherwise each call repeats it, as the engine does.
	countdown bool
}

func (q genQuery) String() string {
	return fmt.Sprintf("namespace=%q labelSelector=%q fieldSelector=%q includeManaged=%q pageSize=%d limit=%d countdown=%t",
		q.namespace, q.labelSelector, q.fieldSelector, q.includeManaged, q.pageSize, q.limit, q.countdown)
}

// inputs is the query's listInputs, without those it leaves absent.
func (q genQuery) inputs() map[string]any {
	m := map[string]any{}
	for key, v := range map[string]string{"namespace": q.namespace, "labelSelector": q.labelSelector,
		"fieldSelector": q.fieldSelector} {
		if v != "" {
			m[key] = v
		}
	}
	if q.includeManaged != "" {
		m["includeManaged"] = q.includeManaged == "true"
	}
	return m
}

// newQuery draws a query of the run's objects: one namespace (two in three) or every
// namespace, selectors or none, includeManaged true, false or absent, a page size of
// 1 to 7 or the default, a limit of 1 to 12 or none.
func (g *genRun) newQuery(r *rand.Rand) genQuery {
	q := genQuery{pageSize: int64(r.IntN(8)), includeManaged: []string{"", "true", "false"}[r.IntN(3)]}
	var reqs []string
	if r.IntN(3) > 0 {
		q.namespace = g.namespaces[r.IntN(len(g.namespaces))]
	} else {
		reqs = append(reqs, genRunLabel+"="+g.run)
	}
	if r.IntN(2) == 0 {
		for range 1 + r.IntN(2) {
			reqs = append(reqs, g.labelRequirement(r))
		}
	}
	r.Shuffle(len(reqs), func(i, j int) { reqs[i], reqs[j] = reqs[j], reqs[i] })
	q.labelSelector = strings.Join(reqs, ",")
	if r.IntN(2) == 0 {
		q.fieldSelector = g.fieldSelector(r)
	}
	if r.IntN(2) == 0 {
		q.limit, q.countdown = 1+r.Int64N(12), r.IntN(2) == 0
	}
	return q
}

// labelRequirement draws one requirement of a label selector, in any of its forms, on
// a key of the vocabulary or (one in eight) the kind's managed-by label.
func (g *genRun) labelRequirement(r *rand.Rand) string {
	keys := slices.Sorted(maps.Keys(genLabelValues))
	key := keys[r.IntN(len(keys))]
	values := genLabelValues[key]
	if r.IntN(8) == 0 {
		key, values = g.kind.managedBy, append(slices.Clone(g.kind.controllers), genOtherManager)
	}
	v := func() string { return values[r.IntN(len(values))] }
	switch r.IntN(7) {
	case 0:
		return key + "=" + v()
	case 1:
		return key + "==" + v()
	case 2:
		return key + "!=" + v()
	case 3:
		return fmt.Sprintf("%s in (%s,%s)", key, v(), v())
	case 4:
		return fmt.Sprintf("%s notin (%s)", key, v())
	case 5:
		return key
	default:
		return "!" + key
	}
}

// fieldSelector draws a field selector of one or two requirements on metadata.name (a
// name of the population, or one no object has) and metadata.namespace.
func (g *genRun) fieldSelector(r *rand.Rand) string {
	reqs := make([]string, 1+r.IntN(2))
	for i := range reqs {
		name := g.pop[r.IntN(len(g.pop))].name
		if r.IntN(5) == 0 {
			name = "nothing-named-so"
		}
		ns := g.namespaces[r.IntN(len(g.namespaces))]
		reqs[i] = []string{"metadata.name=" + name, "metadata.name!=" + name, "metadata.namespace=" + ns,
			"metadata.namespace!=" + ns}[r.IntN(4)]
	}
	return strings.Join(reqs, ",")
}

// selected is the oracle: the objects of the population q selects, by their documented
// ID.
func (g *genRun) selected(q genQuery) map[string]genObject {
	g.t.Helper()
	labelSel, err := labels.Parse(q.labelSelector)
	if err != nil {
		g.t.Fatalf("the generator drew the label selector %q, which does not parse: %v", q.labelSelector, err)
	}
	fieldSel, err := fields.ParseSelector(q.fieldSelector)
	if err != nil {
		g.t.Fatalf("the generator drew the field selector %q, which does not parse: %v", q.fieldSelector, err)
	}
	want := map[string]genObject{}
	for _, o := range g.pop {
		managed := slices.Contains(g.kind.controllers, o.labels[g.kind.managedBy])
		if (q.namespace == "" || o.namespace == q.namespace) && labelSel.Matches(labels.Set(o.labels)) &&
			fieldSel.Matches(fields.Set{"metadata.name": o.name, "metadata.namespace": o.namespace}) &&
			(q.includeManaged == "true" || !managed) {
			want[g.kind.id(o.namespace, o.name)] = o
		}
	}
	return want
}

// listPages pages through the listing of q to its end.
func (g *genRun) listPages(q genQuery) ([]listAnswer, error) {
	var pages []listAnswer
	token, sent := "", int64(0)
	for len(pages) <= len(g.pop)+1 {
		req := &rpc.ListRequest{Token: g.kind.token, PageSize: q.pageSize, Limit: q.limit, ContinuationToken: token}
		if q.countdown {
			req.Limit = q.limit - sent
		}
		g.calls++
		a, err := list(g.t, g.p, req, q.inputs())
		if err != nil {
			return pages, err
		}
		pages = append(pages, a)
		sent += int64(len(a.ids))
		if token = a.continuation; token == "" {
			return pages, nil
		}
	}
	return pages, fmt.Errorf("a continuation token still after %d pages of a population of %d", len(pages), len(g.pop))
}

// check lists query n, q, to its end and checks the pages against the oracle, then
// reads the first ID.
func (g *genRun) check(n int, q genQuery) {
	g.t.Helper()
	want := g.selected(q)
	pages, err := g.listPages(q)
	if err != nil {
		g.errorf(n, q, "List: %v", err)
		return
	}
	if len(want) > 0 {
		g.selecting++
	}
	if len(pages) > 1 {
		g.multiPage++
	}
	if problems := g.pageProblems(q, pages, want); len(problems) > 0 {
		var sizes []int
		for _, a := range pages {
			sizes = append(sizes, len(a.ids))
		}
		g.errorf(n, q, "%s\npages of %v: %v\nselected: %v", strings.Join(problems, "\n"), sizes, pages,
			slices.Sorted(maps.Keys(want)))
	}
	if len(pages[0].ids) > 0 {
		if o, ok := want[pages[0].ids[0]]; ok {
			g.checkRead(n, q, pages[0].ids[0], o)
		}
	}
}

// pageProblems says how pages, the listing of q, differ from what the oracle selected,
// want.
func (g *genRun) pageProblems(q genQuery, pages []listAnswer, want map[string]genObject) []string {
	problems := sizeProblems(q, pages)
	seen := map[string]bool{}
	for _, a := range pages {
		for j, id := range a.ids {
			o, ok := want[id]
			switch {
			case seen[id]:
				problems = append(problems, "listed again: "+id)
			case !ok:
				problems = append(problems, "listed, not selected (or no ID of the documented form): "+id)
			case a.names[j] != genResultName(q, o):
				problems = append(problems, fmt.Sprintf("%s named %q, want %q", id, a.names[j], genResultName(q, o)))
			}
			seen[id] = true
		}
	}
	count := len(want)
	if q.limit > 0 {
		count = min(count, int(q.limit))
	}
	if len(seen) != count {
		problems = append(problems, fmt.Sprintf("%d objects listed, want %d", len(seen), count))
	}
	for id := range want {
		if !seen[id] && q.limit == 0 {
			problems = append(problems, "selected, not listed: "+id)
		}
	}
	return problems
}

// sizeProblems says which pages of the listing of q are not of the size asked
// (kube.DefaultListPageSize when none is): every page but the last holds exactly that
// many results, the last no more; and none is Computed.
func sizeProblems(q genQuery, pages []listAnswer) []string {
	size := q.pageSize
	if size < 1 {
		size = kube.DefaultListPageSize
	}
	var problems []string
	for i, a := range pages {
		if a.computed {
			problems = append(problems, fmt.Sprintf("page %d: Computed for a query of known values", i+1))
		}
		if n := int64(len(a.ids)); n > size || (n != size && i < len(pages)-1) {
			problems = append(problems, fmt.Sprintf("page %d of %d: %d results, want %d (no more on the last)",
				i+1, len(pages), n, size))
		}
	}
	return problems
}

// genResultName is the documented name of o's result: its name, prefixed with its
// namespace when every namespace is listed.
func genResultName(q genQuery, o genObject) string {
	if q.namespace == "" {
		return o.namespace + "-" + o.name
	}
	return o.name
}

// checkRead reads id alone, with no state or inputs, as `pulumi import` does, and
// checks that it is the object o: the same ID and o's uid alone.
func (g *genRun) checkRead(n int, q genQuery, id string, o genObject) {
	g.t.Helper()
	urn := resource.NewURN("listgen", "e2e", "", tokens.Type(g.kind.token), "imported")
	g.reads++
	resp, err := g.p.Read(plugin.Context(g.t), &rpc.ReadRequest{Id: id, Urn: string(urn)})
	if err != nil {
		g.errorf(n, q, "Read %s: %v", id, err)
		return
	}
	props, err := rpcplugin.UnmarshalProperties(resp.GetProperties(), rpcplugin.MarshalOptions{})
	if err != nil {
		g.t.Fatal(err)
	}
	if got := readUIDs(props.Mappable()); resp.GetId() != id || !slices.Equal(got, []string{string(o.uid)}) {
		g.errorf(n, q, "Read %s: ID %q, objects of uids %v; want the ID read and %s/%s alone, uid %s",
			id, resp.GetId(), got, o.namespace, o.name, o.uid)
	}
}

// readUIDs are the uids of a Read's outputs: an EndpointsList's items', or a slice's.
func readUIDs(outputs map[string]any) []string {
	objs := []any{outputs}
	if items, ok := outputs["items"].([]any); ok {
		objs = items
	}
	var uids []string
	for _, obj := range objs {
		m, _ := obj.(map[string]any)
		meta, _ := m["metadata"].(map[string]any)
		uid, _ := meta["uid"].(string)
		uids = append(uids, uid)
	}
	return uids
}

// errorf reports a failure of query n, q, with the command that runs its seed again.
func (g *genRun) errorf(n int, q genQuery, format string, args ...any) {
	g.t.Helper()
	g.t.Errorf("query %d (%s): %s\nrerun (with the TEST_ASSET_* environment of make test): "+
		"LIST_SEED=%d go test -count=1 -run 'TestListGenerated/%s$' ./tests/e2e", n, q, fmt.Sprintf(format, args...),
		g.seed, g.kind.name)
}
