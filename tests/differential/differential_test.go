package differential_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

const (
	// wantCases is the number of cases in the corpus, which runs whole against each
	// API server: the test fails when the corpus changes and this does not.
	wantCases = 1282
	// parallelism bounds the concurrent requests to each API server.
	parallelism = 8
	// nodeHintsFrom is the first minor whose API server keeps an endpoint's
	// hints.forNodes: earlier ones drop them (1.33 by its feature gate, off by
	// default; 1.32 because it does not know the field), so Check leaves them out.
	nodeHintsFrom = 34
	// otherNamespace is a second namespace that the corpus may use.
	otherNamespace = "diff-other"
	// scratchNamespace is where an object whose namespace does not exist is judged
	// again (see server.create).
	scratchNamespace = "diff-scratch"
)

// kind is the resource a case is for.
type kind int

const (
	sliceKind kind = iota
	listKind
)

func (k kind) String() string {
	if k == sliceKind {
		return "EndpointSlice"
	}
	return "EndpointsList"
}

// want is what a hand-written case documents about an API server (and so expects of
// Check applying that server's rules). Generated cases leave it unspecified.
type want int

const (
	unspecified  want = iota
	accept            // accepted, with no warning from Check
	acceptWarn        // accepted, and Check warns
	acceptEither      // accepted; Check may warn (about a name it had to adapt)
	reject            // rejected
	// missingNS: the object's namespace (its own, or the provider's default) is a
	// valid name, but no such namespace exists. Whether a namespace exists is not a
	// rule of the object: Check works offline (a preview may not reach the cluster,
	// and the program may create the namespace in the same update), so it accepts;
	// the server answers 404 NotFound for the namespace, which is no verdict on the
	// object. The test holds both to exactly that, and has the server judge the
	// object in an existing namespace (scratchNamespace), where it must accept it.
	// Cases that must be accepted only use existing namespaces.
	missingNS
)

func (w want) String() string {
	return [...]string{"unspecified", "accept", "accept with a warning", "accept (a warning allowed)", "reject",
		"accept in a namespace that does not exist"}[w]
}

// expectation is what a hand-written case documents: a want, the same on every minor
// of the window, or a fromMinor, for a case whose verdict differs by minor.
type expectation interface {
	at(minor int) want
	String() string
}

func (w want) at(int) want { return w }

// fromMinor documents a case whose verdict differs by minor: each entry holds from its
// minor until the next entry's. Its first entry is the oldest minor of the window
// (validate.OldestMinor), so every minor of the window has a verdict.
type fromMinor map[int]want

func (f fromMinor) at(minor int) want {
	from, w := -1, unspecified
	for m, e := range f {
		if m <= minor && m > from {
			from, w = m, e
		}
	}
	return w
}

func (f fromMinor) String() string {
	parts := make([]string, 0, len(f))
	for _, m := range slices.Sorted(maps.Keys(f)) {
		parts = append(parts, fmt.Sprintf("from 1.%d %v", m, f[m]))
	}
	return strings.Join(parts, ", ")
}

// testCase is one input of the corpus: the inputs the engine would send to Check.
type testCase struct {
	name   string
	kind   kind
	inputs property.Map
	// want is what the case documents (nil for generated cases).
	want expectation
	// logical is the resource name in the URN ("" for defaultLogicalName), from which
	// the provider autonames.
	logical string
	// variant is the provider configuration the case is checked under.
	variant variant
}

// wantAt is what the case documents about an API server of the minor.
func (c testCase) wantAt(minor int) want {
	if c.want == nil {
		return unspecified
	}
	return c.want.at(minor)
}

func (c testCase) String() string {
	s := fmt.Sprintf("%q (%v", c.name, c.kind)
	if c.logical != "" {
		s += ", resource name " + q(short(c.logical))
	}
	if c.variant != plainConfig {
		s += ", provider: " + c.variant.String()
	}
	return s + ")"
}

// verdict is one side's judgement of a case.
type verdict struct {
	accepted bool
	detail   string   // our failures, or the server's message
	warnings []string // what came with it
	fields   []string // the paths of our failures, or the fields the server names
}

// judged is the server's verdict on a case.
type judged struct {
	verdict
	// stored are, when the server accepts, the objects it would store (the
	// dry-run create's answers): the slice, or one Endpoints per item.
	stored []map[string]any
	// missing are the namespaces the server answered 404 NotFound for, whose names
	// are valid: the objects there were judged in scratchNamespace instead.
	missing []string
}

// ends are the API servers the corpus runs against, both ends of the window of minors
// the provider supports: the newest (the package's shared control plane, with its
// controller manager) and the oldest (etcd and its API server alone). name tells them
// apart where their versions may not (see caseURN).
var ends = []struct {
	name  string
	plane func(testing.TB) *controlplane.ControlPlane
}{
	{"newest", controlplane.Shared},
	{"oldest", controlplane.SharedOldest},
}

func TestDifferential(t *testing.T) {
	t.Parallel()
	cases := append(handWrittenCases(t), generatedCases(t)...)
	cases = append(cases, generatedNameCases(t)...)
	if len(cases) != wantCases {
		t.Fatalf("the corpus holds %d cases; wantCases says %d: update it, and the number the README quotes",
			len(cases), wantCases)
	}
	for _, end := range ends {
		cp := end.plane(t)
		_, version := cp.Version()
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			runCorpus(t, end.name, cp, cases)
		})
	}
}

// runCorpus judges every case by the provider's Check, configured for the control
// plane cp (so it learns the server's version itself, as it would from a cluster), and
// by cp's API server, and holds them to agree. end names the end of the window.
func runCorpus(t *testing.T, end string, cp *controlplane.ControlPlane, cases []testCase) {
	minor, version := cp.Version()
	srv := newServer(t, cp.RESTConfig())
	ps := newProviders(t, end, cp.Kubeconfig())

	ours := make([]checked, len(cases))
	theirs := make([]judged, len(cases))
	// dropped are, on a server that drops node hints, its verdicts on the inputs Check
	// returned with the program's node hints put back (see server.withNodeHints).
	dropped := make([]*judged, len(cases))
	var ran atomic.Int64
	indexes := make(chan int)
	var wg sync.WaitGroup
	for range parallelism {
		wg.Go(func() {
			for i := range indexes {
				ours[i] = ps.check(t, i, cases[i])
				theirs[i] = srv.verdict(t.Context(), cases[i], serverInputs(cases[i], ours[i]), caseURN(end, i, cases[i]))
				if minor < nodeHintsFrom && ours[i].accepted && wellTypedNodeHints(cases[i].inputs) {
					dropped[i] = srv.withNodeHints(t.Context(), cases[i], ours[i].inputs)
				}
				ran.Add(1)
			}
		})
	}
	began := time.Now()
	for i := range cases {
		indexes <- i
	}
	close(indexes)
	wg.Wait()
	if t.Failed() {
		return // the server could not be asked
	}
	if n := ran.Load(); n != wantCases {
		t.Errorf("%d cases ran against kube-apiserver %s; want %d", n, version, wantCases)
	}

	var n struct{ agree, accepted, warned, missing, compared, hintsDropped, hintsGiven int }
	for i, c := range cases {
		o, s := ours[i], theirs[i]
		if o.accepted {
			n.accepted++
			if len(o.warnings) > 0 {
				n.warned++
			}
		}
		if len(s.missing) > 0 {
			n.missing++
		}
		if o.accepted == s.accepted {
			n.agree++
		} else {
			t.Errorf("case %d %v disagrees: Check %s, the API server %s %s\ninputs: %s\nCheck: %s\nwarnings: %q\nserver: %s",
				i, c, acceptance(o.accepted), version, acceptance(s.accepted), abbreviate(inputsJSON(c.inputs)),
				o.detail, o.warnings, s.detail)
		}
		if !o.accepted && !s.accepted && len(s.fields) > 0 && !samePlace(o.fields, s.fields) {
			t.Errorf("case %d %v: Check and the API server %s reject it for different fields\nCheck: %s\nserver: %s",
				i, c, version, o.detail, s.detail)
		}
		if o.accepted {
			for _, problem := range namingProblems(c, o.inputs) {
				t.Errorf("case %d %v: %s\ninputs: %s\nCheck returned: %s", i, c, problem,
					abbreviate(inputsJSON(c.inputs)), abbreviate(inputsJSON(o.inputs)))
			}
		}
		if o.accepted && s.accepted {
			n.compared += len(s.stored)
			for _, diff := range storedDifferences(c, o.inputs, s) {
				t.Errorf("case %d %v: the API server %s stores something else than Check returned; "+
					"canonical forms differ %s\ninputs: %s", i, c, version, diff, abbreviate(inputsJSON(c.inputs)))
			}
		}
		if minor < nodeHintsFrom && o.accepted && hasNodeHints(c.inputs) {
			n.hintsDropped++
			if dropped[i] != nil {
				n.hintsGiven++
			}
			checkDroppedNodeHints(t, i, c, version, o, s, dropped[i])
		}
		checkDocumented(t, i, c, minor, version, o.verdict, s)
	}
	t.Logf("differential, kube-apiserver %s: ran %d cases (wantCases %d); %d agree (Check accepts %d, %d of them "+
		"with warnings; rejects %d); %d in a missing namespace; %d objects the server would store compared with "+
		"Check's inputs; node hints left out in %d (and dropped by the server when given back in %d); %v",
		version, ran.Load(), wantCases, n.agree, n.accepted, n.warned, len(cases)-n.accepted, n.missing, n.compared,
		n.hintsDropped, n.hintsGiven, time.Since(began).Round(time.Millisecond))
}

// checkDocumented holds Check and the server of the minor to what a hand-written case
// documents for that minor.
func checkDocumented(t *testing.T, i int, c testCase, minor int, version string, o verdict, s judged) {
	t.Helper()
	documented := c.wantAt(minor)
	if len(s.missing) > 0 && documented != missingNS && documented != reject {
		t.Errorf("case %d %v: corpus error: the namespaces %q do not exist; only cases documented as %v "+
			"(or rejected for another reason) may name them", i, c, s.missing, missingNS)
	}
	if documented == unspecified {
		return
	}
	got := reject
	switch {
	case o.accepted && len(o.warnings) > 0:
		got = acceptWarn
	case o.accepted:
		got = accept
	}
	switch documented {
	case acceptEither:
		if !o.accepted {
			got = reject
		} else {
			got = acceptEither
		}
	case missingNS:
		if !o.accepted || len(s.missing) == 0 || !s.accepted {
			t.Errorf("case %d %v: the case documents that Check accepts it and the server finds its namespace "+
				"missing and accepts it elsewhere; Check %s, missing namespaces %q, server %s %s\ninputs: %s\nCheck: %s\nserver: %s",
				i, c, acceptance(o.accepted), s.missing, version, acceptance(s.accepted), abbreviate(inputsJSON(c.inputs)),
				o.detail, s.detail)
		}
		return
	}
	if got != documented {
		t.Errorf("case %d %v: on kube-apiserver %s Check's verdict is %v, the case documents %v (%v)\ninputs: %s\n"+
			"Check: %s\nwarnings: %q\nserver: %s",
			i, c, version, got, documented, c.want, abbreviate(inputsJSON(c.inputs)), o.detail, o.warnings, s.detail)
	}
	if serverAccepts := documented != reject; s.accepted != serverAccepts {
		t.Errorf("case %d %v: the server %s %s it, the case documents %v (%v)\nserver: %s",
			i, c, version, acceptance(s.accepted), documented, c.want, s.detail)
	}
}

// checkDroppedNodeHints holds Check, on a server that drops node hints (before
// nodeHintsFrom), to what that server does with a case that sets them: Check accepted
// it and left them out of the inputs it returned, with a warning naming the field and
// the server's version; the server stored none; and given the program's node hints
// (in dropped, when the case's node hints are of types the server can decode), the
// server accepts them and stores none either, which is why Check may leave them out.
func checkDroppedNodeHints(t *testing.T, i int, c testCase, version string, o checked, s judged, dropped *judged) {
	t.Helper()
	if hasNodeHints(o.inputs) {
		t.Errorf("case %d %v: kube-apiserver %s drops node hints, but Check returned them\nCheck returned: %s",
			i, c, version, abbreviate(inputsJSON(o.inputs)))
	}
	if !slices.ContainsFunc(o.warnings, func(w string) bool {
		return strings.Contains(w, "hints.forNodes") && strings.Contains(w, version)
	}) {
		t.Errorf("case %d %v: Check left node hints out without a warning that names hints.forNodes and "+
			"kube-apiserver %s\nwarnings: %q", i, c, version, o.warnings)
	}
	for _, stored := range s.stored {
		if hasNodeHints(fromJSONObject(stored)) {
			t.Errorf("case %d %v: kube-apiserver %s stored node hints from inputs that hold none: %s",
				i, c, version, abbreviate(mustJSON(stored)))
		}
	}
	if dropped == nil {
		return
	}
	if !dropped.accepted {
		t.Errorf("case %d %v: kube-apiserver %s rejects the program's node hints, which it should drop: %s",
			i, c, version, dropped.detail)
	}
	for _, stored := range dropped.stored {
		if hasNodeHints(fromJSONObject(stored)) {
			t.Errorf("case %d %v: kube-apiserver %s stored the program's node hints, which Check left out: %s",
				i, c, version, abbreviate(mustJSON(stored)))
		}
	}
}

// hasNodeHints reports whether a slice's inputs (or the object the server stored) set
// hints.forNodes on an endpoint, to a value other than null: what Check leaves out
// where the server drops it.
func hasNodeHints(obj property.Map) bool {
	plain, _ := validate.Plain(property.New(obj)).(map[string]any)
	endpoints, _ := plain["endpoints"].([]any)
	for _, e := range endpoints {
		e, _ := e.(map[string]any)
		hints, _ := e["hints"].(map[string]any)
		if v, ok := hints["forNodes"]; ok && v != nil {
			return true
		}
	}
	return false
}

// wellTypedNodeHints reports whether a slice's inputs set node hints that every
// minor's API server can decode, given fieldValidation=Ignore: lists of objects
// whose names are strings. (1.32 ignores the field whatever it holds; 1.33 knows it,
// so a name that is a number fails decoding there.)
func wellTypedNodeHints(obj property.Map) bool {
	if !hasNodeHints(obj) {
		return false
	}
	plain, _ := validate.Plain(property.New(obj)).(map[string]any)
	endpoints, _ := plain["endpoints"].([]any)
	for _, e := range endpoints {
		e, _ := e.(map[string]any)
		hints, _ := e["hints"].(map[string]any)
		v, ok := hints["forNodes"]
		if !ok || v == nil {
			continue
		}
		nodes, ok := v.([]any)
		if !ok {
			return false
		}
		for _, node := range nodes {
			node, ok := node.(map[string]any)
			if !ok {
				return false
			}
			if name, ok := node["name"]; ok {
				if _, ok := name.(string); !ok {
					return false
				}
			}
		}
	}
	return true
}

// samePlace reports whether one of our failure paths and one of the server's fields
// name the same place: one is a prefix of the other once indexes and keys are left
// out (the server leaves some out: "metadata.ownerReferences.uid",
// "endpoints[0].addresses" for an address, "metadata.labels" for a label). A name the
// server generated from metadata.generateName is rejected as metadata.name, which the
// program did not write: Check names the generateName it came from.
func samePlace(ours, theirs []string) bool {
	var places []string
	for _, o := range ours {
		o = subscripts.ReplaceAllString(o, "")
		places = append(places, o)
		if named := strings.Replace(o, "metadata.generateName", "metadata.name", 1); named != o {
			places = append(places, named)
		}
	}
	for _, o := range places {
		for _, f := range theirs {
			f = subscripts.ReplaceAllString(f, "")
			if strings.HasPrefix(o, f) || strings.HasPrefix(f, o) {
				return true
			}
		}
	}
	return false
}

// subscripts matches the index and key subscripts of a path.
var subscripts = regexp.MustCompile(`\[(?:\d+|"(?:[^"\\]|\\.)*"|[^\]]*)\]`)

func acceptance(ok bool) string {
	if ok {
		return "accepts"
	}
	return "rejects"
}

// serverInputs are the inputs the server judges for a case: Check's returned inputs,
// names and namespaces assigned, defaults applied and server-owned fields dropped, as
// the provider would create them. Only where Check rejected metadata that is not an
// object (it cannot assign names to it) does the server get the metadata the program
// gave. When the provider refused its configuration, Check returned nothing; the
// server then gets the program's inputs in the namespace the configuration names.
func serverInputs(c testCase, o checked) property.Map {
	if o.inputs.Len() == 0 && c.inputs.Len() > 0 {
		return withNamespace(c, c.inputs, variants[c.variant].namespace)
	}
	if o.accepted {
		return o.inputs
	}
	out := o.inputs
	restore := func(given, returned property.Map) property.Map {
		if m, ok := given.GetOk("metadata"); ok && !m.IsNull() && !m.IsMap() {
			return returned.Set("metadata", m)
		}
		return returned
	}
	if c.kind == sliceKind {
		return restore(c.inputs, out)
	}
	given, returned := c.inputs.Get("items"), out.Get("items")
	if !given.IsArray() || !returned.IsArray() || given.AsArray().Len() != returned.AsArray().Len() {
		return out
	}
	items := returned.AsArray().AsSlice()
	for j, item := range items {
		if g := given.AsArray().Get(j); g.IsMap() && item.IsMap() {
			items[j] = property.New(restore(g.AsMap(), item.AsMap()))
		}
	}
	return out.Set("items", property.New(items))
}

// withNamespace sets the namespace of the objects of inputs that name none.
func withNamespace(c testCase, inputs property.Map, namespace string) property.Map {
	set := func(obj property.Map) property.Map {
		meta := obj.Get("metadata")
		if !meta.IsNull() && !meta.IsMap() {
			return obj
		}
		m := meta.AsMap()
		if ns := m.Get("namespace"); ns.IsNull() || ns.IsString() && ns.AsString() == "" {
			m = m.Set("namespace", property.New(namespace))
		}
		return obj.Set("metadata", property.New(m))
	}
	if c.kind == sliceKind {
		return set(inputs)
	}
	items := inputs.Get("items")
	if !items.IsArray() {
		return inputs
	}
	out := items.AsArray().AsSlice()
	for j, item := range out {
		if item.IsMap() {
			out[j] = property.New(set(item.AsMap()))
		}
	}
	return inputs.Set("items", property.New(out))
}

// autonamePattern is the form of an autoname whose resource name is already a valid
// name prefix: the resource name, '-' and 8 hex characters.
var autonamePattern = regexp.MustCompile(`^(.*)-[0-9a-f]{8}$`)

// plainLogicalName matches resource names that are valid object names as they are,
// so the provider has no reason to change them.
var plainLogicalName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// namingProblems checks the names and namespaces Check assigned in the inputs it
// accepted: objects that name no namespace are in the provider's default namespace
// (its setting, else the kubeconfig context's, else "default"), and a slice named
// neither by name nor by generateName has a name made from its resource name. (The
// server then judges those names and namespaces like any other.)
func namingProblems(c testCase, returned property.Map) []string {
	var problems []string
	wantNS := variants[c.variant].namespace
	checkNS := func(where string, given, got property.Value) {
		if ns := metaString(given, "namespace"); ns != "" {
			wantNS := ns
			if g := metaString(got, "namespace"); g != wantNS {
				problems = append(problems, fmt.Sprintf("%smetadata.namespace: Check returned %q for %q", where, g, wantNS))
			}
			return
		}
		if g := metaString(got, "namespace"); g != wantNS {
			problems = append(problems, fmt.Sprintf("%smetadata.namespace: Check returned %q; the provider's default "+
				"namespace is %q (%v)", where, g, wantNS, c.variant))
		}
	}
	if c.kind == listKind {
		given, got := c.inputs.Get("items"), returned.Get("items")
		if !given.IsArray() || !got.IsArray() || given.AsArray().Len() != got.AsArray().Len() {
			return append(problems, "Check returned another number of items than it was given")
		}
		for j, item := range given.AsArray().All {
			where := fmt.Sprintf("items[%d].", j)
			givenMeta, gotMeta := metadataOf(item), metadataOf(got.AsArray().Get(j))
			checkNS(where, givenMeta, gotMeta)
			// An item's name is its identity in the set: Check must return one, made
			// from generateName (its prefix and 5 random characters) when the program
			// gave none.
			name, prefix := metaString(gotMeta, "name"), metaString(givenMeta, "generateName")
			switch {
			case name == "":
				problems = append(problems, where+"metadata.name: Check accepted an item and returned no name for it; "+
					"an item's name is its identity in the set")
			case metaString(givenMeta, "name") == "" && prefix != "":
				if cut := prefix[:min(len(prefix), 253-5)]; !strings.HasPrefix(name, cut) || len(name) != len(cut)+5 {
					problems = append(problems, fmt.Sprintf("%smetadata.name: Check named an item with generateName %q %q; "+
						"want the prefix and 5 random characters", where, short(prefix), short(name)))
				}
			}
		}
		return problems
	}
	givenMeta, gotMeta := c.inputs.Get("metadata"), returned.Get("metadata")
	checkNS("", givenMeta, gotMeta)
	if givenMeta.IsMap() && (givenMeta.AsMap().Get("name").IsString() || givenMeta.AsMap().Get("generateName").IsString()) {
		return problems
	}
	name := metaString(gotMeta, "name")
	logical := c.logical
	if logical == "" {
		logical = defaultLogicalName
	}
	switch m := autonamePattern.FindStringSubmatch(name); {
	case name == "":
		problems = append(problems, "metadata.name: Check assigned no name to an autonamed slice")
	case plainLogicalName.MatchString(logical) && len(logical) <= 244 && (m == nil || m[1] != logical):
		problems = append(problems, fmt.Sprintf("metadata.name: Check named the slice %q; want %q, '-' and 8 hex characters",
			name, logical))
	}
	return problems
}

// metadataOf returns the metadata of an object value, null if it has none.
func metadataOf(obj property.Value) property.Value {
	if !obj.IsMap() {
		return property.New(property.Null)
	}
	return obj.AsMap().Get("metadata")
}

// metaString returns a string field of metadata, "" if unset.
func metaString(meta property.Value, field string) string {
	if !meta.IsMap() {
		return ""
	}
	if v := meta.AsMap().Get(field); v.IsString() {
		return v.AsString()
	}
	return ""
}

// Fields of the objects as the provider writes them, besides metadata.
var (
	sliceFields     = []string{"metadata", "addressType", "endpoints", "ports"}
	endpointsFields = []string{"metadata", "subsets"}
)

// written adds to obj what the provider's every write to a cluster adds: the resource's
// URN in kube.OwnerAnnotation, which counts against the annotations' limit there as in
// Check. Metadata or annotations that are not objects are left as given.
func written(obj map[string]any, urn resource.URN) {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		return
	}
	annotations, ok := meta["annotations"].(map[string]any)
	if meta["annotations"] == nil {
		annotations, ok = map[string]any{}, true
	}
	if ok {
		annotations[kube.OwnerAnnotation] = string(urn)
		meta["annotations"] = annotations
	}
}

// unwritten is a copy of a stored object without what written added.
func unwritten(stored map[string]any) map[string]any {
	out := deepCopy(stored).(map[string]any)
	if meta, ok := out["metadata"].(map[string]any); ok {
		if annotations, ok := meta["annotations"].(map[string]any); ok {
			delete(annotations, kube.OwnerAnnotation)
			if len(annotations) == 0 {
				delete(meta, "annotations")
			}
		}
	}
	return out
}

// storedDifferences compares the objects the server would store with the inputs
// Check returned, in their canonical forms (validate.EndpointSliceForm and
// validate.EndpointsForm: server defaults, empty values and server-set metadata
// normalized away, Endpoints subsets compared as facts), and describes each difference.
func storedDifferences(c testCase, returned property.Map, s judged) []string {
	compare := func(where string, canonical func(map[string]any) map[string]any, fields []string, ours property.Map,
		stored map[string]any,
	) []string {
		want := validate.KnownMap(canonical(validate.DecodeMap(only(ours, fields))))
		got := validate.KnownMap(canonical(validate.DecodeMap(only(fromJSONObject(unwritten(stored)), fields))))
		if diff := cmp.Diff(want, got); diff != "" {
			return []string{fmt.Sprintf("%s(-Check +server):\n%s\nCheck returned: %s\nserver stored: %s", where, diff,
				abbreviate(inputsJSON(ours)), abbreviate(mustJSON(stored)))}
		}
		return nil
	}
	if c.kind == sliceKind {
		if len(s.stored) != 1 {
			return []string{fmt.Sprintf("internal error: %d stored objects for a slice", len(s.stored))}
		}
		return compare("", validate.EndpointSliceForm.Object, sliceFields, returned, s.stored[0])
	}
	items := returned.Get("items")
	if !items.IsArray() || items.AsArray().Len() != len(s.stored) {
		return []string{fmt.Sprintf("internal error: %d stored objects for %v items", len(s.stored), items)}
	}
	var out []string
	for j, item := range items.AsArray().All {
		out = append(out, compare(fmt.Sprintf("items[%d] ", j), validate.EndpointsForm.Object, endpointsFields, item.AsMap(), s.stored[j])...)
	}
	return out
}

// only returns the fields of m that are listed.
func only(m property.Map, fields []string) property.Map {
	out := map[string]property.Value{}
	for _, f := range fields {
		if v, ok := m.GetOk(f); ok {
			out[f] = v
		}
	}
	return property.NewMap(out)
}

// fromJSONObject converts an object as the server returns it to property values.
func fromJSONObject(obj map[string]any) property.Map {
	return resource.FromResourcePropertyMap(resource.NewPropertyMapFromMap(obj))
}

// server asks a real API server for its verdicts.
type server struct {
	t    *testing.T
	core rest.Interface
	disc rest.Interface
	cs   kubernetes.Interface
}

func newServer(t *testing.T, config *rest.Config) *server {
	t.Helper()
	config.QPS, config.Burst = 1000, 1000
	config.WarningHandler = rest.NoWarnings{}
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatalf("build a clientset: %v", err)
	}
	for _, name := range []string{otherNamespace, contextNamespaceName, scratchNamespace} {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if _, err := cs.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("create namespace %s: %v", name, err)
		}
	}
	return &server{t: t, core: cs.CoreV1().RESTClient(), disc: cs.DiscoveryV1().RESTClient(), cs: cs}
}

// verdict sends inputs, the inputs Check returned for c, to the server as the
// provider would create them: a slice as one object, a list as one Endpoints object
// per item. Every top-level input goes into the object (for inputs Check accepts,
// those are metadata and the kind's fields, all the provider sends); the server reads
// it with strict field validation, so a property the Kubernetes type does not have
// is rejected, as Check rejects it, rather than dropped.
func (s *server) verdict(ctx context.Context, c testCase, inputs property.Map, urn resource.URN) judged {
	defaultNS := variants[c.variant].namespace
	if c.kind == sliceKind {
		obj := validate.PlainMap(inputs)
		written(obj, urn)
		obj["apiVersion"], obj["kind"] = "discovery.k8s.io/v1", "EndpointSlice"
		return s.create(ctx, s.disc, "endpointslices", obj, defaultNS, true)
	}

	items, ok := validate.Plain(inputs.Get("items")).([]any)
	if !ok {
		s.t.Errorf("corpus error: case %v has no items list for the server to judge", c)
		return judged{}
	}
	var (
		warnings, details, missing []string
		stored                     []map[string]any
	)
	for i, item := range items {
		obj, ok := item.(map[string]any)
		if !ok {
			s.t.Errorf("corpus error: case %v: items[%d] is not an object", c, i)
			return judged{}
		}
		obj["apiVersion"], obj["kind"] = "v1", "Endpoints"
		written(obj, urn)
		v := s.create(ctx, s.core, "endpoints", obj, defaultNS, true)
		warnings = append(warnings, v.warnings...)
		missing = append(missing, v.missing...)
		if !v.accepted {
			for j, f := range v.fields {
				v.fields[j] = fmt.Sprintf("items[%d].%s", i, f)
			}
			v.detail = fmt.Sprintf("items[%d]: %s", i, v.detail)
			v.warnings, v.missing, v.stored = warnings, missing, nil
			return v
		}
		details = append(details, v.detail)
		stored = append(stored, v.stored...)
	}
	if len(items) > 1 {
		// A dry run cannot see that two items name the same object: create the items
		// for real, in fresh namespaces, as the provider would.
		if v := s.replay(ctx, items, defaultNS); !v.accepted {
			v.missing = missing
			return v
		}
	}
	return judged{verdict: verdict{accepted: true, detail: strings.Join(details, "; "), warnings: warnings},
		stored: stored, missing: missing}
}

// create sends obj to the server (a dry run unless told otherwise) into its
// metadata.namespace, or defaultNS when it names none, with strict field validation.
//
// A 404 NotFound for the namespace is no verdict on the object. The server is asked
// whether a namespace of that name could be created (a dry-run create of the
// namespace): if not, the name is invalid, and that is the server's verdict on the
// object's namespace; if so, the namespace merely does not exist, and the object is
// judged again in scratchNamespace, its verdict recorded with the missing namespace.
func (s *server) create(ctx context.Context, client rest.Interface, resource string, obj map[string]any,
	defaultNS string, dryRun bool,
) judged {
	namespace := defaultNS
	meta, _ := obj["metadata"].(map[string]any)
	if ns, ok := meta["namespace"].(string); ok && ns != "" {
		namespace = ns
	}
	j := s.post(ctx, client, resource, namespace, obj, dryRun)
	if !namespaceNotFound(j.err, namespace) {
		return j.judged
	}
	if err := s.namespaceValid(ctx, namespace); err != nil {
		return judged{verdict: verdict{detail: fmt.Sprintf("namespace %q: %v (the object: %v)", namespace, err, j.err),
			fields: []string{"metadata.namespace"}}}
	}
	moved := deepCopy(obj).(map[string]any)
	if meta, ok := moved["metadata"].(map[string]any); ok {
		meta["namespace"] = scratchNamespace
	}
	again := s.post(ctx, client, resource, scratchNamespace, moved, dryRun)
	again.missing = []string{namespace}
	for _, stored := range again.stored {
		if meta, ok := stored["metadata"].(map[string]any); ok {
			meta["namespace"] = namespace
		}
	}
	return again.judged
}

// posted is one request's verdict, with the error it came from.
type posted struct {
	judged
	err error
}

func (s *server) post(ctx context.Context, client rest.Interface, resource, namespace string, obj map[string]any, dryRun bool) posted {
	return s.postWith(ctx, client, resource, namespace, obj, dryRun, "Strict")
}

// postWith is post with the field validation given ("Strict", "Ignore").
func (s *server) postWith(ctx context.Context, client rest.Interface, resource, namespace string, obj map[string]any,
	dryRun bool, fieldValidation string,
) posted {
	body, err := json.Marshal(obj)
	if err != nil {
		s.t.Errorf("internal error: marshal %v: %v", obj, err)
		return posted{}
	}
	req := client.Post().Namespace(namespace).Resource(resource).
		SetHeader("Content-Type", "application/json").
		Param("fieldValidation", fieldValidation).
		Body(body)
	if dryRun {
		req = req.Param("dryRun", metav1.DryRunAll)
	}
	var res rest.Result
	for attempt := 0; ; attempt++ {
		res = req.Do(ctx)
		if err = res.Error(); err == nil || !retryable(err) || attempt == 3 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var warnings []string
	for _, w := range res.Warnings() {
		if !strings.Contains(w.Text, "v1 Endpoints is deprecated") {
			warnings = append(warnings, w.Text)
		}
	}
	if err == nil {
		raw, err := res.Raw()
		var stored map[string]any
		if err == nil {
			err = json.Unmarshal(raw, &stored)
		}
		if err != nil {
			s.t.Errorf("internal error: read the server's answer for a %s: %v", resource, err)
		}
		return posted{judged: judged{verdict: verdict{accepted: true, warnings: warnings}, stored: []map[string]any{stored}}}
	}
	if retryable(err) {
		s.t.Errorf("the API server could not judge a %s: %v", resource, err)
	}
	var fields []string
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Details != nil {
		for _, cause := range status.Status().Details.Causes {
			if cause.Field != "" {
				fields = append(fields, cause.Field)
			}
		}
	}
	return posted{judged: judged{verdict: verdict{detail: err.Error(), warnings: warnings, fields: fields}}, err: err}
}

// withNodeHints asks a server that drops node hints what it does with the program's:
// a dry-run create of returned, the slice Check returned for c (without node hints),
// with each endpoint's hints.forNodes put back as the program gave them, read with
// fieldValidation=Ignore (strict validation would reject the field as unknown where
// the server does not know it, which is a rule of the request, not of the object).
func (s *server) withNodeHints(ctx context.Context, c testCase, returned property.Map) *judged {
	obj := validate.PlainMap(returned)
	given, _ := validate.Plain(property.New(c.inputs)).(map[string]any)
	ours, _ := obj["endpoints"].([]any)
	theirs, _ := given["endpoints"].([]any)
	if len(ours) != len(theirs) {
		s.t.Errorf("internal error: case %v: Check returned %d endpoints for %d", c, len(ours), len(theirs))
		return nil
	}
	for j, e := range theirs {
		program, _ := e.(map[string]any)
		hints, _ := program["hints"].(map[string]any)
		nodes, ok := hints["forNodes"]
		endpoint, isMap := ours[j].(map[string]any)
		if !ok || nodes == nil || !isMap {
			continue
		}
		kept, _ := endpoint["hints"].(map[string]any)
		if kept == nil {
			kept = map[string]any{}
			endpoint["hints"] = kept
		}
		kept["forNodes"] = nodes
	}
	obj["apiVersion"], obj["kind"] = "discovery.k8s.io/v1", "EndpointSlice"
	namespace := variants[c.variant].namespace
	if meta, ok := obj["metadata"].(map[string]any); ok {
		if ns, ok := meta["namespace"].(string); ok && ns != "" {
			namespace = ns
		}
	}
	j := s.postWith(ctx, s.disc, "endpointslices", namespace, obj, true, "Ignore").judged
	return &j
}

// namespaceNotFound tells whether err is the server's 404 for the namespace.
func namespaceNotFound(err error, namespace string) bool {
	var status apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d != nil && d.Kind == "namespaces" && d.Name == namespace
}

// namespaceValid asks the server whether a namespace of that name could be created.
func (s *server) namespaceValid(ctx context.Context, name string) error {
	_, err := s.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}},
		metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// retryable reports whether err says nothing about the object: the request did not
// get an answer from the server, or the server was overloaded or failed.
func retryable(err error) bool {
	var status apierrors.APIStatus
	return !errors.As(err, &status) || apierrors.IsTooManyRequests(err) || apierrors.IsInternalError(err) ||
		apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err)
}

// replay creates items for real, each distinct namespace of theirs (defaultNS for
// none) mapped to a fresh namespace, and reports the first failure.
func (s *server) replay(ctx context.Context, items []any, defaultNS string) judged {
	fresh := map[string]string{}
	defer func() {
		for _, ns := range fresh {
			_ = s.cs.CoreV1().Namespaces().Delete(context.WithoutCancel(ctx), ns, metav1.DeleteOptions{})
		}
	}()
	for i, item := range items {
		obj := deepCopy(item).(map[string]any)
		meta, _ := obj["metadata"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
			obj["metadata"] = meta
		}
		ns, _ := meta["namespace"].(string)
		if ns == "" {
			ns = defaultNS
		}
		if _, ok := fresh[ns]; !ok {
			created, err := s.cs.CoreV1().Namespaces().Create(ctx,
				&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "diff-replay-"}}, metav1.CreateOptions{})
			if err != nil {
				s.t.Errorf("create a namespace: %v", err)
				return judged{}
			}
			fresh[ns] = created.Name
		}
		meta["namespace"] = fresh[ns]
		if v := s.create(ctx, s.core, "endpoints", obj, defaultNS, false); !v.accepted {
			return judged{verdict: verdict{detail: fmt.Sprintf("items[%d] (created for real): %s", i, v.detail)}}
		}
	}
	return judged{verdict: verdict{accepted: true}}
}

// fromPlain converts a value decoded by encoding/json to a property value.
func fromPlain(v any) property.Value {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]property.Value, len(v))
		for k, e := range v {
			m[k] = fromPlain(e)
		}
		return property.New(m)
	case []any:
		a := make([]property.Value, len(v))
		for i, e := range v {
			a[i] = fromPlain(e)
		}
		return property.New(a)
	case int:
		return property.New(float64(v))
	}
	p, err := property.Any(v)
	if err != nil {
		panic(fmt.Sprintf("corpus error: %v", err))
	}
	return p
}

// decodeJSON decodes a JSON document to plain Go values.
func decodeJSON(tb testing.TB, doc string) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		tb.Fatalf("corpus error: %v in %s", err, doc)
	}
	return m
}

func inputsJSON(m property.Map) string { return mustJSON(validate.Plain(property.New(m))) }

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// short abbreviates a name for a case's title.
func short(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	return s[:limit] + fmt.Sprintf("...(%d characters)", len(s))
}

func abbreviate(s string) string {
	const limit = 1500
	if len(s) <= limit {
		return s
	}
	return s[:limit] + fmt.Sprintf("... (%d bytes)", len(s))
}

// deepCopy copies plain JSON values.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
