package lifecycle_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/seeded"
)

// The round-trip test: seeded, generated, valid programs of both kinds (generate_test.go)
// go through the life the engine gives a resource, through the provider's resource
// methods, against the shared control plane's API server:
//
//  1. Check (no failures for valid inputs; the final names are valid object names, an
//     autoname follows the autonaming rule), Create, and the objects are on the server as
//     the program says;
//  2. refresh (Read), then preview (Check with the refreshed inputs as olds, then Diff)
//     is quiet;
//  3. Update with the same inputs, refresh, and preview is still quiet;
//  4. an out-of-band edit through client-go (a port, an address, an endpoint or subset
//     dropped or added, an item deleted), refresh, and preview reports the drift; Update
//     undoes it, refresh, preview is quiet, and the server holds the program again;
//  5. (slices) `pulumi import` by ID gives inputs that check, preview with no changes and
//     mean what the program means;
//  6. Delete, and the objects are gone.
//
// TestRenderRoundTrip gives the same programs the same life with a provider that
// renders to a directory (render_roundtrip_test.go): the edits are hand edits of the
// manifests, an Update with the same inputs leaves every file as it was, and after
// each write every manifest, created on the API server as a dry run with strict field
// validation, is accepted and stored as it is written.
//
// ROUNDTRIP_SEED picks the programs (default defaultRoundTripSeed); every failure prints
// the command that runs the failing program alone, and its inputs.

const (
	defaultRoundTripSeed = 20251122
	roundTripSlices      = 300
	roundTripLists       = 200
	// roundTripWorkers is how many programs run at once.
	roundTripWorkers = 8
	// opTimeout bounds each Create, Update and Delete (seconds).
	opTimeout = 60
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(fastRESTConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	runRoundTrips(t, newNamespace(t), func(*testing.T) objectStore { return clusterStore{cs} })
}

// runRoundTrips runs the seeded programs in namespace ns, roundTripSlices of
// EndpointSlice and roundTripLists of EndpointsList (30 and 20 with -short),
// roundTripWorkers at a time, each with its objects in the store that store gives its
// subtest.
func runRoundTrips(t *testing.T, ns string, store func(t *testing.T) objectStore) {
	t.Helper()
	seed := seeded.FromEnv(t, "ROUNDTRIP_SEED", defaultRoundTripSeed)
	nSlices, nLists := roundTripSlices, roundTripLists
	if testing.Short() {
		nSlices, nLists = 30, 20
	}
	var names []string
	for i := range nSlices {
		names = append(names, fmt.Sprintf("slice-%03d", i))
	}
	for i := range nLists {
		names = append(names, fmt.Sprintf("list-%03d", i))
	}
	began := time.Now()
	ran := runConcurrently(t, roundTripWorkers, names, func(t *testing.T, i int) {
		pr, ops := newGen(seed, "slice", i).sliceProgram(ns), kindOps(sliceOps{})
		if i >= nSlices {
			pr, ops = newGen(seed, "list", i-nSlices).listProgram(ns), listOps{}
		}
		newRoundTrip(t, seed, ns, store(t), pr).run(ops)
	})
	t.Logf("seed %d: ran %d of %d programs (%d EndpointSlice, %d EndpointsList) in %v, %d at a time",
		seed, ran, len(names), nSlices, nLists, time.Since(began).Round(time.Millisecond), roundTripWorkers)
}

// runConcurrently runs one subtest per name, at most workers at a time, and returns how
// many ran (-run may select a few). The subtests do not call t.Parallel: that would
// bound them by -parallel, GOMAXPROCS by default (2 on our machines), while a program
// spends most of its time waiting on the API server; t.Run may be called from several
// goroutines at once.
func runConcurrently(t *testing.T, workers int, names []string, run func(t *testing.T, i int)) int {
	t.Helper()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		ran  int
		next = make(chan int)
	)
	for range workers {
		wg.Go(func() {
			for i := range next {
				t.Run(names[i], func(t *testing.T) {
					mu.Lock()
					ran++
					mu.Unlock()
					run(t, i)
				})
			}
		})
	}
	for i := range names {
		next <- i
	}
	close(next)
	wg.Wait()
	return ran
}

// fastRESTConfig is the admin configuration without the shared clientset's rate
// limit (50 QPS), which hundreds of programs would wait on, and without warnings.
func fastRESTConfig(t *testing.T) *rest.Config {
	t.Helper()
	cfg := controlplane.Shared(t).RESTConfig()
	cfg.QPS, cfg.Burst = 1000, 2000
	cfg.WarningHandler = rest.NoWarnings{}
	return cfg
}

// roundTrip runs one program.
type roundTrip struct {
	t     *testing.T
	seed  uint64
	ns    string
	store objectStore // where the objects are: the cluster, or a render directory
	pr    program
	srv   integration.Server
	u     resource.URN
	g     *gen // for the program's out-of-band edit
	id    string
	shown bool // whether a failure message already showed the program

	// What the object(s) are called, once known.
	sliceName string
	items     []objectKey
}

type objectKey struct{ namespace, name string }

func (k objectKey) String() string { return k.namespace + "/" + k.name }

// newRoundTrip is the round trip of a program whose objects go to store.
func newRoundTrip(t *testing.T, seed uint64, ns string, store objectStore, pr program) *roundTrip {
	t.Helper()
	var config map[string]property.Value
	if pr.nsViaConfig {
		config = map[string]property.Value{"namespace": property.New(ns)}
	}
	token := spec.EndpointSliceToken
	if pr.kind == "list" {
		token = spec.EndpointsListToken
	}
	// The edit's random choices come from a stream of their own, so that the program
	// does not depend on them.
	edits := newGen(seed^0x5eed, pr.kind, pr.index)
	// Each program is a stack of its own, as it would be: resources of one name in the
	// same namespace have URNs, so names, of their own.
	u := resource.NewURN(tokens.QName(pr.name()), "lifecycle", "", tokens.Type(token), pr.logical)
	return &roundTrip{t: t, seed: seed, ns: ns, store: store, pr: pr, srv: store.provider(t, config), u: u, g: edits}
}

// context is appended to every failure: how to run the program alone and, the first
// time, what it is.
func (rt *roundTrip) context() string {
	cmd := fmt.Sprintf("reproduce (with the TEST_ASSET_* environment of make test): "+
		"ROUNDTRIP_SEED=%d go test -count=1 -run '%s/%s$' ./tests/lifecycle/", rt.seed,
		strings.SplitN(rt.t.Name(), "/", 2)[0], rt.pr.name())
	if rt.shown {
		return cmd
	}
	rt.shown = true
	how := "metadata.namespace set in the program"
	if rt.pr.nsViaConfig {
		how = "from the provider's namespace configuration"
	}
	return fmt.Sprintf("%s\nresource %q (URN %s), namespace %s (%s)\nprogram inputs:\n%s",
		cmd, rt.pr.logical, rt.u, rt.ns, how, rt.pr.json())
}

func (rt *roundTrip) errorf(format string, args ...any) {
	rt.t.Helper()
	rt.t.Errorf("%s\n%s", fmt.Sprintf(format, args...), rt.context())
}

func (rt *roundTrip) fatalf(format string, args ...any) {
	rt.t.Helper()
	rt.t.Fatalf("%s\n%s", fmt.Sprintf(format, args...), rt.context())
}

// kindOps is what differs between the two kinds.
type kindOps interface {
	// names checks the names in the checked inputs of a create.
	names(rt *roundTrip, checked property.Map)
	// created records the objects' names from Create's outputs.
	created(rt *roundTrip, outputs property.Map)
	// verify compares the stored objects with the program.
	verify(rt *roundTrip, step string)
	// edit changes the stored objects behind the provider's back and says how.
	edit(rt *roundTrip) string
	// imported checks what `pulumi import` makes of the objects.
	imported(rt *roundTrip)
	// gone checks that the objects are deleted.
	gone(rt *roundTrip)
}

func (rt *roundTrip) run(ops kindOps) {
	rt.t.Helper()
	checked := rt.check("Check of the create", property.Map{})
	ops.names(rt, checked)
	created, err := rt.srv.Create(p.CreateRequest{Urn: rt.u, Properties: checked, Timeout: opTimeout})
	if err != nil {
		rt.fatalf("Create: %v", err)
	}
	rt.id = created.ID
	ops.created(rt, created.Properties)
	ops.verify(rt, "after Create")

	// create, refresh, preview: quiet.
	read := rt.read("refresh after Create", created.Properties, checked)
	checked = rt.quiet("preview after Create and refresh", read)

	// An update with the same inputs changes nothing.
	before := rt.store.fingerprint(rt)
	updated := rt.update("Update with the same inputs", read, checked)
	if after := rt.store.fingerprint(rt); after != before {
		rt.errorf("an Update with the same inputs rewrote %s:\nbefore: %s\nafter: %s", rt.store, before, after)
	}
	ops.verify(rt, "after an Update with the same inputs")
	read = rt.read("refresh after an Update with the same inputs", updated.Properties, checked)
	checked = rt.quiet("preview after an Update with the same inputs and refresh", read)

	// Drift: refresh shows it, the next update undoes it.
	what := ops.edit(rt)
	read = rt.read("refresh after the out-of-band edit ("+what+")", read.Properties, checked)
	checked = rt.drift(what, read)
	updated = rt.update("Update after the out-of-band edit ("+what+")", read, checked)
	ops.verify(rt, "after the Update that undoes the out-of-band edit ("+what+")")
	read = rt.read("refresh after the Update that undoes the out-of-band edit", updated.Properties, checked)
	rt.quiet("preview after the Update that undoes the out-of-band edit ("+what+") and refresh", read)
	ops.imported(rt)

	if err := rt.srv.Delete(p.DeleteRequest{ID: rt.id, Urn: rt.u, Properties: read.Properties,
		OldInputs: read.Inputs, Timeout: opTimeout}); err != nil {
		rt.fatalf("Delete: %v", err)
	}
	ops.gone(rt)
}

// randomSeed is the Check request's random seed, derived from the program, so that an
// autoname can be the same on every run (if the provider takes it from the request).
func (rt *roundTrip) randomSeed() []byte {
	return []byte(fmt.Sprintf("roundtrip-%d-%s", rt.seed, rt.pr.name()))
}

// check runs the program's inputs through Check with olds as the engine's old inputs;
// valid inputs draw no failures.
func (rt *roundTrip) check(step string, olds property.Map) property.Map {
	rt.t.Helper()
	resp, err := rt.srv.Check(p.CheckRequest{Urn: rt.u, State: olds, Inputs: rt.pr.props(), RandomSeed: rt.randomSeed()})
	if err != nil {
		rt.fatalf("%s: Check: %v", step, err)
	}
	if len(resp.Failures) > 0 {
		var lines []string
		for _, f := range resp.Failures {
			lines = append(lines, fmt.Sprintf("  %s: %s", f.Property, f.Reason))
		}
		rt.fatalf("%s: Check fails valid inputs:\n%s", step, strings.Join(lines, "\n"))
	}
	return resp.Inputs
}

func (rt *roundTrip) read(step string, state, inputs property.Map) p.ReadResponse {
	rt.t.Helper()
	resp, err := rt.srv.Read(p.ReadRequest{ID: rt.id, Urn: rt.u, Properties: state, Inputs: inputs})
	if err != nil {
		rt.fatalf("%s: Read: %v", step, err)
	}
	if resp.ID != rt.id {
		rt.fatalf("%s: Read answered ID %q, want %q (the object exists)", step, resp.ID, rt.id)
	}
	return resp
}

func (rt *roundTrip) update(step string, read p.ReadResponse, checked property.Map) p.UpdateResponse {
	rt.t.Helper()
	resp, err := rt.srv.Update(p.UpdateRequest{ID: rt.id, Urn: rt.u, State: read.Properties,
		OldInputs: read.Inputs, Inputs: checked, Timeout: opTimeout})
	if err != nil {
		rt.fatalf("%s: Update: %v", step, err)
	}
	return resp
}

// preview is what the engine does after a refresh: Check the program's inputs with the
// refreshed inputs as olds, then Diff.
func (rt *roundTrip) preview(step string, read p.ReadResponse) (property.Map, p.DiffResponse) {
	rt.t.Helper()
	checked := rt.check(step, read.Inputs)
	d, err := rt.srv.Diff(p.DiffRequest{ID: rt.id, Urn: rt.u, OldInputs: read.Inputs, State: read.Properties,
		Inputs: checked})
	if err != nil {
		rt.fatalf("%s: Diff: %v", step, err)
	}
	return checked, d
}

// quiet asserts that a preview after a refresh of an object that matches the program
// reports no change.
func (rt *roundTrip) quiet(step string, read p.ReadResponse) property.Map {
	rt.t.Helper()
	checked, d := rt.preview(step, read)
	if d.HasChanges || len(d.DetailedDiff) > 0 || d.DeleteBeforeReplace {
		rt.errorf("%s: Diff reports %s for an object that matches the program\n"+
			"refreshed inputs (Read) -> program's checked inputs (Check), -old +new:\n%s",
			step, showDiff(d), cmp.Diff(validate.PlainMap(read.Inputs), validate.PlainMap(checked)))
	}
	return checked
}

// drift asserts that a preview after a refresh of an object edited out of band reports
// the change, as an in-place update (no edit touches what replaces the object).
func (rt *roundTrip) drift(what string, read p.ReadResponse) property.Map {
	rt.t.Helper()
	step := "preview after the out-of-band edit (" + what + ") and refresh"
	checked, d := rt.preview(step, read)
	if !d.HasChanges || len(d.DetailedDiff) == 0 {
		rt.errorf("%s: Diff reports %s; want the drift shown as a change\n"+
			"refreshed inputs (Read) -> program's checked inputs (Check), -old +new:\n%s",
			step, showDiff(d), cmp.Diff(validate.PlainMap(read.Inputs), validate.PlainMap(checked)))
		return checked
	}
	for k, c := range d.DetailedDiff {
		if c.Kind == p.AddReplace || c.Kind == p.DeleteReplace || c.Kind == p.UpdateReplace {
			rt.errorf("%s: Diff reports %s: %s replaces the object; want an in-place update", step, showDiff(d), k)
		}
	}
	return checked
}

func showDiff(d p.DiffResponse) string {
	if !d.HasChanges && len(d.DetailedDiff) == 0 {
		return "no changes"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(d.DetailedDiff)) {
		parts = append(parts, fmt.Sprintf("%s: %s", k, d.DetailedDiff[k].Kind))
	}
	return fmt.Sprintf("hasChanges=%v deleteBeforeReplace=%v detailedDiff={%s}",
		d.HasChanges, d.DeleteBeforeReplace, strings.Join(parts, ", "))
}

// Names.

var autonameSuffix = regexp.MustCompile(`^(.*)-[0-9a-f]{8}$`)

// checkObjectName reports a name Kubernetes would not accept for the object.
func (rt *roundTrip) checkObjectName(step, path, name string) {
	rt.t.Helper()
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		rt.errorf("%s: %s %q is not a valid object name (DNS subdomain): %s", step, path, name, strings.Join(errs, "; "))
	}
}

func stringAt(m property.Map, path ...string) (string, bool) {
	v := property.New(m)
	for _, k := range path {
		if !v.IsMap() {
			return "", false
		}
		v = v.AsMap().Get(k)
	}
	if !v.IsString() {
		return "", false
	}
	return v.AsString(), true
}

// EndpointSlice.

type sliceOps struct{}

func (sliceOps) names(rt *roundTrip, checked property.Map) {
	rt.t.Helper()
	meta := mapAt(rt.pr.inputs, "metadata")
	if got, _ := stringAt(checked, "metadata", "namespace"); got != rt.ns {
		rt.errorf("Check: metadata.namespace = %q, want %q", got, rt.ns)
	}
	name, hasName := stringAt(checked, "metadata", "name")
	switch {
	case meta["name"] != nil:
		if name != meta["name"] {
			rt.errorf("Check: metadata.name = %q, want the program's %q", name, meta["name"])
		}
	case meta["generateName"] != nil:
		if hasName {
			rt.errorf("Check: metadata.name = %q although the program sets generateName (the server picks the name)", name)
		}
		return
	default:
		if !hasName {
			rt.fatalf("Check gave the autonamed slice no metadata.name: %v", validate.PlainMap(checked))
		}
		m := autonameSuffix.FindStringSubmatch(name)
		if m == nil {
			rt.errorf("Check: autoname %q does not end in '-' and 8 hex characters", name)
		} else if want := autonamePrefix(rt.pr.logical); want != "" && m[1] != want {
			rt.errorf("Check: autoname %q for the resource name %q: want %q, '-' and 8 hex characters", name, rt.pr.logical, want)
		}
	}
	rt.checkObjectName("Check", "metadata.name", name)
}

func (sliceOps) created(rt *roundTrip, outputs property.Map) {
	rt.t.Helper()
	name, _ := stringAt(outputs, "metadata", "name")
	namespace, _ := stringAt(outputs, "metadata", "namespace")
	rt.checkObjectName("Create", "output metadata.name", name)
	if prefix, ok := mapAt(rt.pr.inputs, "metadata")["generateName"].(string); ok && !strings.HasPrefix(name, prefix) {
		rt.errorf("Create: metadata.name %q does not start with the program's generateName %q", name, prefix)
	}
	if want := namespace + "/" + name; rt.id != want || namespace != rt.ns {
		rt.errorf("Create: ID %q, output metadata %s/%s; want ID %s/%s", rt.id, namespace, name, rt.ns, name)
	}
	rt.sliceName = name
}

// sliceSemantics is what an EndpointSlice means, with the server's defaults applied
// (a port's name "" and protocol TCP); nil and empty are compared as the same.
type sliceSemantics struct {
	Namespace   string
	Labels      map[string]string
	Annotations map[string]string
	AddressType discoveryv1.AddressType
	Endpoints   []discoveryv1.Endpoint
	Ports       []discoveryv1.EndpointPort
}

func semanticsOfSlice(s *discoveryv1.EndpointSlice, namespace string) sliceSemantics {
	// The create ID that labels a slice whose name the server generated, and the URN
	// every object the provider creates carries, are the provider's own metadata, not
	// the program's.
	labels := maps.Clone(s.Labels)
	delete(labels, kube.CreateIDLabel)
	out := sliceSemantics{Namespace: s.Namespace, Labels: labels, Annotations: programAnnotations(s.Annotations),
		AddressType: s.AddressType, Endpoints: s.Endpoints}
	if out.Namespace == "" {
		out.Namespace = namespace
	}
	for _, port := range s.Ports {
		if port.Name == nil {
			port.Name = new(string)
		}
		if port.Protocol == nil {
			tcp := corev1.ProtocolTCP
			port.Protocol = &tcp
		}
		out.Ports = append(out.Ports, port)
	}
	return out
}

// decode turns plain program data into a client-go object.
func decode(t *testing.T, in map[string]any, out any) {
	t.Helper()
	b, err := json.Marshal(in)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		t.Fatalf("internal error: decoding the program into %T: %v", out, err)
	}
}

func (sliceOps) want(rt *roundTrip) sliceSemantics {
	var s discoveryv1.EndpointSlice
	decode(rt.t, rt.pr.inputs, &s)
	return semanticsOfSlice(&s, rt.ns)
}

// wantOnServer is the slice the program means on the server: with the provider's
// managed-by label unless the program sets that label.
func (o sliceOps) wantOnServer(rt *roundTrip) sliceSemantics {
	s := o.want(rt)
	if _, set := s.Labels[kube.ManagedByLabel]; !set {
		s.Labels = maps.Clone(s.Labels)
		if s.Labels == nil {
			s.Labels = map[string]string{}
		}
		s.Labels[kube.ManagedByLabel] = kube.ManagedBy
	}
	return s
}

func (o sliceOps) verify(rt *roundTrip, step string) {
	rt.t.Helper()
	live, err := rt.store.slice(rt.t.Context(), rt.ns, rt.sliceName)
	if err != nil {
		rt.fatalf("%s: EndpointSlice %s/%s in %s: %v", step, rt.ns, rt.sliceName, rt.store, err)
	}
	if d := cmp.Diff(o.wantOnServer(rt), semanticsOfSlice(live, rt.ns), cmpopts.EquateEmpty()); d != "" {
		rt.errorf("%s: the slice in %s differs from the program (-program +stored):\n%s", step, rt.store, d)
	}
	rt.store.verify(rt, step)
}

func (o sliceOps) edit(rt *roundTrip) string {
	rt.t.Helper()
	ctx := rt.t.Context()
	live, err := rt.store.slice(ctx, rt.ns, rt.sliceName)
	if err != nil {
		rt.fatalf("edit: get the slice: %v", err)
	}
	g := rt.g
	fresh := func() string {
		n := g.next()
		switch live.AddressType {
		case discoveryv1.AddressTypeIPv6:
			return fmt.Sprintf("fc00::%x", n)
		case discoveryv1.AddressTypeFQDN:
			return fmt.Sprintf("drift-%d.example.net", n)
		}
		return fmt.Sprintf("10.250.%d.%d", n/250, n%250+1)
	}
	type edit struct {
		what  string
		apply func()
	}
	edits := []edit{{"endpoint added", func() {
		live.Endpoints = append(live.Endpoints, discoveryv1.Endpoint{Addresses: []string{fresh()}})
	}}}
	if len(live.Ports) > 0 {
		edits = append(edits,
			edit{"ports[0].port changed", func() {
				port := 40000 + g.int32n(20000)
				if live.Ports[0].Port != nil && *live.Ports[0].Port == port {
					port++
				}
				live.Ports[0].Port = &port
			}},
			edit{"ports removed", func() { live.Ports = nil }})
	}
	if len(live.Endpoints) > 0 {
		edits = append(edits,
			edit{"endpoints[0].addresses[0] changed", func() { live.Endpoints[0].Addresses[0] = fresh() }},
			edit{"last endpoint removed", func() { live.Endpoints = live.Endpoints[:len(live.Endpoints)-1] }},
			edit{"endpoints[0].conditions.ready flipped", func() {
				// Unset reads as ready, so unset becomes false.
				ready := false
				if r := live.Endpoints[0].Conditions.Ready; r != nil {
					ready = !*r
				}
				live.Endpoints[0].Conditions.Ready = &ready
			}})
	}
	e := pick(g, edits...)
	e.apply()
	if d := cmp.Diff(o.want(rt), semanticsOfSlice(live, rt.ns), cmpopts.EquateEmpty()); d == "" {
		rt.fatalf("internal error: the edit %q changes nothing", e.what)
	}
	if err := rt.store.updateSlice(ctx, live); err != nil {
		rt.fatalf("edit (%s): update the slice: %v", e.what, err)
	}
	return "slice " + e.what
}

// imported: `pulumi import` by namespace/name gives inputs that, written into a
// program, check without failures, preview with no changes and mean what the program
// means (docs/guides/resources.md, "No spurious diffs").
func (o sliceOps) imported(rt *roundTrip) {
	rt.t.Helper()
	u := rt.u.Rename(rt.pr.logical + "-imported")
	imp, err := rt.srv.Read(p.ReadRequest{ID: rt.id, Urn: u})
	if err != nil || imp.ID != rt.id {
		rt.fatalf("import %s: Read = %q, %v", rt.id, imp.ID, err)
	}
	resp, err := rt.srv.Check(p.CheckRequest{Urn: u, State: imp.Inputs, Inputs: imp.Inputs, RandomSeed: rt.randomSeed()})
	if err != nil || len(resp.Failures) > 0 {
		rt.fatalf("import %s: Check of the imported inputs = %+v, %v\nimported inputs: %v", rt.id, resp.Failures, err,
			validate.PlainMap(imp.Inputs))
	}
	d, err := rt.srv.Diff(p.DiffRequest{ID: rt.id, Urn: u, OldInputs: imp.Inputs, State: imp.Properties, Inputs: resp.Inputs})
	if err != nil {
		rt.fatalf("import %s: Diff: %v", rt.id, err)
	}
	if d.HasChanges || len(d.DetailedDiff) > 0 {
		rt.errorf("import %s: the imported inputs preview with %s\nimported -> checked, -old +new:\n%s", rt.id, showDiff(d),
			cmp.Diff(validate.PlainMap(imp.Inputs), validate.PlainMap(resp.Inputs)))
	}
	var s discoveryv1.EndpointSlice
	plainInputs := validate.PlainMap(imp.Inputs)
	decode(rt.t, plainInputs, &s)
	if diff := cmp.Diff(o.want(rt), semanticsOfSlice(&s, rt.ns), cmpopts.EquateEmpty()); diff != "" {
		rt.errorf("import %s: the imported inputs differ from the program (-program +imported):\n%s", rt.id, diff)
	}
}

func (sliceOps) gone(rt *roundTrip) {
	rt.t.Helper()
	_, err := rt.store.slice(rt.t.Context(), rt.ns, rt.sliceName)
	if !apierrors.IsNotFound(err) {
		rt.errorf("after Delete: EndpointSlice %s/%s is still in %s (err=%v)", rt.ns, rt.sliceName, rt.store, err)
	}
}

// EndpointsList.

type listOps struct{}

func (listOps) programItems(rt *roundTrip) []map[string]any {
	var out []map[string]any
	for _, it := range rt.pr.inputs["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

func (o listOps) names(rt *roundTrip, checked property.Map) {
	rt.t.Helper()
	want := o.programItems(rt)
	v := checked.Get("items")
	if !v.IsArray() || v.AsArray().Len() != len(want) {
		rt.fatalf("Check: items = %v, want %d items", validate.Plain(v), len(want))
	}
	rt.items = nil
	for i, item := range want {
		c := v.AsArray().Get(i)
		if !c.IsMap() {
			rt.fatalf("Check: items[%d] = %v, want an object", i, validate.Plain(c))
		}
		name, _ := stringAt(c.AsMap(), "metadata", "name")
		namespace, _ := stringAt(c.AsMap(), "metadata", "namespace")
		if namespace != rt.ns {
			rt.errorf("Check: items[%d].metadata.namespace = %q, want %q", i, namespace, rt.ns)
		}
		meta := mapAt(item, "metadata")
		if prefix, generated := meta["generateName"].(string); generated {
			if !strings.HasPrefix(name, prefix) || len(name) != len(prefix)+5 {
				rt.errorf("Check: items[%d].metadata.name = %q, want the generateName %q and 5 characters", i, name, prefix)
			}
		} else if name != meta["name"] {
			rt.errorf("Check: items[%d].metadata.name = %q, want the program's %q", i, name, meta["name"])
		}
		rt.checkObjectName("Check", fmt.Sprintf("items[%d].metadata.name", i), name)
		rt.items = append(rt.items, objectKey{namespace, name})
		if err := rt.store.keep(rt.t.Context(), objectKey{namespace, name}); err != nil {
			rt.fatalf("Check: items[%d]: %v", i, err)
		}
	}
}

func (listOps) created(rt *roundTrip, outputs property.Map) {
	rt.t.Helper()
	if rt.id == "" {
		rt.errorf("Create: empty ID")
	}
	if n := outputs.Get("items"); !n.IsArray() || n.AsArray().Len() != len(rt.items) {
		rt.errorf("Create: output items = %v, want %d items", validate.Plain(n), len(rt.items))
	}
}

// programAnnotations are an object's annotations without the provider's
// kube.OwnerAnnotation, nil when none is left.
func programAnnotations(annotations map[string]string) map[string]string {
	out := maps.Clone(annotations)
	delete(out, kube.OwnerAnnotation)
	if len(out) == 0 {
		return nil
	}
	return out
}

// endpointsSemantics is what one Endpoints object means: its labels and annotations and
// the set of (address, port, ready) facts its subsets state, however they are packed.
type endpointsSemantics struct {
	Labels      map[string]string
	Annotations map[string]string
	Facts       []string
}

func semanticsOfEndpoints(e *corev1.Endpoints) endpointsSemantics {
	type key struct{ addr, port string }
	ready := map[key]bool{}
	for _, ss := range e.Subsets {
		ports := []string{"no port"}
		if len(ss.Ports) > 0 {
			ports = ports[:0]
			for _, port := range ss.Ports {
				ports = append(ports, portFact(port))
			}
		}
		for _, l := range []struct {
			addrs []corev1.EndpointAddress
			ready bool
		}{{ss.Addresses, true}, {ss.NotReadyAddresses, false}} {
			for _, a := range l.addrs {
				for _, port := range ports {
					k := key{addrFact(a), port}
					ready[k] = ready[k] || l.ready // ready wins, as the Endpoints API reads it
				}
			}
		}
	}
	out := endpointsSemantics{Labels: e.Labels, Annotations: programAnnotations(e.Annotations)}
	for k, r := range ready {
		state := "ready"
		if !r {
			state = "not ready"
		}
		out.Facts = append(out.Facts, fmt.Sprintf("%s × %s: %s", k.addr, k.port, state))
	}
	slices.Sort(out.Facts)
	return out
}

func addrFact(a corev1.EndpointAddress) string {
	s := a.IP
	if a.Hostname != "" {
		s += " hostname=" + a.Hostname
	}
	if a.NodeName != nil && *a.NodeName != "" {
		s += " node=" + *a.NodeName
	}
	if r := a.TargetRef; r != nil && *r != (corev1.ObjectReference{}) {
		s += fmt.Sprintf(" target=%s:%s/%s", r.Kind, r.Namespace, r.Name)
		if r.UID != "" {
			s += " uid=" + string(r.UID)
		}
	}
	return s
}

func portFact(port corev1.EndpointPort) string {
	protocol := port.Protocol
	if protocol == "" {
		protocol = corev1.ProtocolTCP
	}
	s := fmt.Sprintf("port %q %d/%s", port.Name, port.Port, protocol)
	if port.AppProtocol != nil && *port.AppProtocol != "" {
		s += " app=" + *port.AppProtocol
	}
	return s
}

func (o listOps) want(rt *roundTrip) map[string]endpointsSemantics {
	out := map[string]endpointsSemantics{}
	for i, item := range o.programItems(rt) {
		var e corev1.Endpoints
		decode(rt.t, item, &e)
		out[rt.items[i].String()] = semanticsOfEndpoints(&e)
	}
	return out
}

// live reads the program's items from the server; a missing one is left out.
func (listOps) live(rt *roundTrip, step string) (map[string]endpointsSemantics, map[string]*corev1.Endpoints) {
	rt.t.Helper()
	sem, objs := map[string]endpointsSemantics{}, map[string]*corev1.Endpoints{}
	for _, k := range rt.items {
		e, err := rt.store.endpoints(rt.t.Context(), k.namespace, k.name)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			rt.fatalf("%s: get Endpoints %s: %v", step, k, err)
		}
		sem[k.String()], objs[k.String()] = semanticsOfEndpoints(e), e
	}
	return sem, objs
}

func (o listOps) verify(rt *roundTrip, step string) {
	rt.t.Helper()
	live, _ := o.live(rt, step)
	if d := cmp.Diff(o.want(rt), live, cmpopts.EquateEmpty()); d != "" {
		rt.errorf("%s: the Endpoints in %s differ from the program (-program +stored):\n%s", step, rt.store, d)
	}
	rt.store.verify(rt, step)
}

func (o listOps) edit(rt *roundTrip) string {
	rt.t.Helper()
	ctx := rt.t.Context()
	g := rt.g
	want := o.want(rt)
	_, objs := o.live(rt, "edit")
	k := pick(g, rt.items...)
	e := objs[k.String()]
	if e == nil {
		rt.fatalf("edit: Endpoints %s is not in %s", k, rt.store)
	}
	// The server repacks subsets; two equal ports can end up side by side (it tells
	// ports apart by their appProtocol pointer). Write each port once, which means the
	// same, so that the edited object is valid.
	for i := range e.Subsets {
		var ports []corev1.EndpointPort
		for _, port := range e.Subsets[i].Ports {
			if !slices.ContainsFunc(ports, func(q corev1.EndpointPort) bool { return portFact(q) == portFact(port) }) {
				ports = append(ports, port)
			}
		}
		e.Subsets[i].Ports = ports
	}
	freshIP := func() string {
		n := g.next()
		return fmt.Sprintf("10.251.%d.%d", n/250, n%250+1)
	}
	addSubset := func() {
		e.Subsets = append(e.Subsets, corev1.EndpointSubset{
			Addresses: []corev1.EndpointAddress{{IP: freshIP()}},
			Ports:     []corev1.EndpointPort{{Port: 40000 + g.int32n(20000)}},
		})
	}
	changeIP := func() bool {
		for i := range e.Subsets {
			if len(e.Subsets[i].Addresses) > 0 {
				e.Subsets[i].Addresses[0].IP = freshIP()
				return true
			}
			if len(e.Subsets[i].NotReadyAddresses) > 0 {
				e.Subsets[i].NotReadyAddresses[0].IP = freshIP()
				return true
			}
		}
		return false
	}
	type edit struct {
		what  string
		apply func()
	}
	edits := []edit{{"subset added", addSubset}}
	if len(rt.items) > 1 && rt.store.deletable(k) {
		edits = append(edits, edit{"item deleted", nil})
	}
	if len(e.Subsets) > 0 {
		edits = append(edits,
			edit{"an address's ip changed", func() { changeIP() }},
			edit{"last subset removed", func() { e.Subsets = e.Subsets[:len(e.Subsets)-1] }},
			edit{"all subsets removed", func() { e.Subsets = nil }})
		for i := range e.Subsets {
			if len(e.Subsets[i].Ports) > 0 {
				edits = append(edits, edit{"a port number changed", func() {
					port := &e.Subsets[i].Ports[0]
					port.Port = 40000 + g.int32n(20000)
				}})
				break
			}
		}
	}
	ed := pick(g, edits...)
	if ed.apply == nil {
		if err := rt.store.deleteEndpoints(ctx, k.namespace, k.name); err != nil {
			rt.fatalf("edit: delete Endpoints %s: %v", k, err)
		}
		return fmt.Sprintf("Endpoints %s %s", k, ed.what)
	}
	ed.apply()
	if cmp.Equal(want[k.String()], semanticsOfEndpoints(e), cmpopts.EquateEmpty()) {
		// Repacking can make a subset redundant; an address changed is always a change.
		ed.what += ", which changed nothing, so also an address's ip changed"
		if !changeIP() {
			addSubset()
		}
	}
	if err := rt.store.updateEndpoints(ctx, e); err != nil {
		rt.fatalf("edit (%s): update Endpoints %s: %v", ed.what, k, err)
	}
	return fmt.Sprintf("Endpoints %s: %s", k, ed.what)
}

// imported: an EndpointsList is imported by label selector, which the generated
// programs do not set up; TestEndpointsListImportBySelector covers it.
func (listOps) imported(*roundTrip) {}

func (o listOps) gone(rt *roundTrip) {
	rt.t.Helper()
	if live, _ := o.live(rt, "after Delete"); len(live) > 0 {
		rt.errorf("after Delete: %d of the Endpoints are still in %s: %v", len(live), rt.store, slices.Sorted(maps.Keys(live)))
	}
}
