package differential_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	sigsjson "sigs.k8s.io/json"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

const (
	// minCases is the least number of cases the corpus must hold.
	minCases = 300
	// parallelism bounds the concurrent requests to the API server.
	parallelism = 8
	// otherNamespace is a second namespace that the corpus may use.
	otherNamespace = "diff-other"
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

// want is what a hand-written case documents about the server (and so expects of
// Check). Generated cases leave it unspecified.
type want int

const (
	unspecified want = iota
	accept           // accepted, with no warning from Check
	acceptWarn       // accepted, and Check warns
	reject           // rejected
)

func (w want) String() string {
	return [...]string{"unspecified", "accept", "accept with a warning", "reject"}[w]
}

// testCase is one input of the corpus: the inputs the engine would send to Check.
type testCase struct {
	name   string
	kind   kind
	inputs property.Map
	want   want
}

// verdict is one side's judgement of a case.
type verdict struct {
	accepted bool
	detail   string   // our failures, or the server's message
	warnings []string // what came with it
	fields   []string // the paths of our failures, or the fields the server names
}

func TestDifferential(t *testing.T) {
	t.Parallel()
	cases := append(handWrittenCases(t), generatedCases(t)...)
	if len(cases) < minCases {
		t.Fatalf("the corpus holds %d cases; it must hold at least %d", len(cases), minCases)
	}

	cp := controlPlane(t)
	srv := newServer(t, cp.RESTConfig())

	ours := make([]verdict, len(cases))
	theirs := make([]verdict, len(cases))
	indexes := make(chan int)
	var wg sync.WaitGroup
	for range parallelism {
		wg.Go(func() {
			for i := range indexes {
				ours[i] = ourVerdict(cases[i])
				theirs[i] = srv.verdict(t.Context(), cases[i])
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

	agree, accepted, warned := 0, 0, 0
	for i, c := range cases {
		o, s := ours[i], theirs[i]
		if o.accepted {
			accepted++
			if len(o.warnings) > 0 {
				warned++
			}
		}
		if o.accepted == s.accepted {
			agree++
		} else {
			t.Errorf("case %d %q (%v) disagrees: Check %s, the API server %s\ninputs: %s\nCheck: %s\nwarnings: %q\nserver: %s",
				i, c.name, c.kind, acceptance(o.accepted), acceptance(s.accepted), abbreviate(inputsJSON(c.inputs)),
				o.detail, o.warnings, s.detail)
		}
		if !o.accepted && !s.accepted && len(s.fields) > 0 && !samePlace(o.fields, s.fields) {
			t.Errorf("case %d %q (%v): Check and the API server reject it for different fields\nCheck: %s\nserver: %s",
				i, c.name, c.kind, o.detail, s.detail)
		}
		if c.want == unspecified {
			continue
		}
		got := reject
		switch {
		case o.accepted && len(o.warnings) > 0:
			got = acceptWarn
		case o.accepted:
			got = accept
		}
		if got != c.want {
			t.Errorf("case %d %q (%v): Check's verdict is %v, the case documents %v\ninputs: %s\nCheck: %s\nwarnings: %q\nserver: %s",
				i, c.name, c.kind, got, c.want, abbreviate(inputsJSON(c.inputs)), o.detail, o.warnings, s.detail)
		}
	}
	t.Logf("differential: %d/%d cases agree (%d accepted, %d of them with warnings; %d rejected) in %v",
		agree, len(cases), accepted, warned, len(cases)-accepted, time.Since(began).Round(time.Millisecond))
}

// samePlace reports whether one of our failure paths and one of the server's fields
// name the same place: one is a prefix of the other once indexes and keys are left
// out (the server leaves some out: "metadata.ownerReferences.uid",
// "endpoints[0].addresses" for an address, "metadata.labels" for a label).
func samePlace(ours, theirs []string) bool {
	for _, o := range ours {
		o = subscripts.ReplaceAllString(o, "")
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

// ourVerdict runs Check's validation.
func ourVerdict(c testCase) verdict {
	var r validate.Result
	if c.kind == sliceKind {
		r = validate.EndpointSlice(c.inputs)
	} else {
		r = validate.EndpointsList(c.inputs)
	}
	lines := make([]string, len(r.Failures))
	for i, f := range r.Failures {
		lines[i] = f.Path + ": " + f.Reason
	}
	fields := make([]string, len(r.Failures))
	for i, f := range r.Failures {
		fields[i] = f.Path
	}
	return verdict{accepted: len(r.Failures) == 0, detail: strings.Join(lines, "; "), warnings: r.Warnings, fields: fields}
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
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: otherNamespace}}
	if _, err := cs.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create namespace %s: %v", otherNamespace, err)
	}
	return &server{t: t, core: cs.CoreV1().RESTClient(), disc: cs.DiscoveryV1().RESTClient(), cs: cs}
}

// verdict sends the normalized inputs of c, as the provider would, to the server.
func (s *server) verdict(ctx context.Context, c testCase) verdict {
	normalized := ourNormalized(c)
	if c.kind == sliceKind {
		obj := plain(property.New(normalized)).(map[string]any)
		obj["apiVersion"], obj["kind"] = "discovery.k8s.io/v1", "EndpointSlice"
		return s.create(ctx, s.disc, "endpointslices", obj, &discoveryv1.EndpointSlice{}, true)
	}

	items, ok := plain(normalized.Get("items")).([]any)
	if !ok {
		s.t.Errorf("corpus error: case %q has no items list for the server to judge", c.name)
		return verdict{}
	}
	var warnings, details []string
	for i, item := range items {
		obj, ok := item.(map[string]any)
		if !ok {
			s.t.Errorf("corpus error: case %q: items[%d] is not an object", c.name, i)
			return verdict{}
		}
		obj["apiVersion"], obj["kind"] = "v1", "Endpoints"
		v := s.create(ctx, s.core, "endpoints", obj, &corev1.Endpoints{}, true)
		warnings = append(warnings, v.warnings...)
		if !v.accepted {
			for j, f := range v.fields {
				v.fields[j] = fmt.Sprintf("items[%d].%s", i, f)
			}
			return verdict{detail: fmt.Sprintf("items[%d]: %s", i, v.detail), warnings: warnings, fields: v.fields}
		}
		details = append(details, v.detail)
	}
	if len(items) > 1 {
		// A dry run cannot see that two items name the same object: create the items
		// for real, in fresh namespaces, as the provider would.
		if v := s.replay(ctx, items); !v.accepted {
			return v
		}
	}
	return verdict{accepted: true, detail: strings.Join(details, "; "), warnings: warnings}
}

// ourNormalized returns Check's normalized inputs for c.
func ourNormalized(c testCase) property.Map {
	if c.kind == sliceKind {
		return validate.EndpointSlice(c.inputs).Inputs
	}
	return validate.EndpointsList(c.inputs).Inputs
}

// create converts obj to the typed object by JSON and dry-run creates it. When the
// typed object cannot hold the JSON (a wrong type, an unknown field), the JSON itself
// goes to the server, with strict field validation, so the server judges it.
func (s *server) create(ctx context.Context, client rest.Interface, resource string, obj map[string]any, typed metav1.Object, dryRun bool) verdict {
	body, err := json.Marshal(obj)
	if err != nil {
		s.t.Errorf("internal error: marshal %v: %v", obj, err)
		return verdict{}
	}
	namespace := "default"
	if meta, ok := obj["metadata"].(map[string]any); ok {
		if ns, ok := meta["namespace"].(string); ok && ns != "" {
			namespace = ns
		}
	}
	strictErrs, err := sigsjson.UnmarshalStrict(body, typed, sigsjson.DisallowUnknownFields)
	if err == nil && len(strictErrs) == 0 {
		if typed.GetNamespace() != "" {
			namespace = typed.GetNamespace()
		}
		if body, err = json.Marshal(typed); err != nil {
			s.t.Errorf("internal error: marshal %T: %v", typed, err)
			return verdict{}
		}
	}

	req := client.Post().Namespace(namespace).Resource(resource).
		SetHeader("Content-Type", "application/json").
		Param("fieldValidation", "Strict").
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
		return verdict{accepted: true, warnings: warnings}
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
	return verdict{detail: err.Error(), warnings: warnings, fields: fields}
}

// retryable reports whether err says nothing about the object: the request did not
// get an answer from the server, or the server was overloaded or failed.
func retryable(err error) bool {
	var status apierrors.APIStatus
	return !errors.As(err, &status) || apierrors.IsTooManyRequests(err) || apierrors.IsInternalError(err) ||
		apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err)
}

// replay creates items for real, each distinct namespace of theirs mapped to a fresh
// namespace (with an unset namespace standing for "default", as in
// validate.EndpointsList), and reports the first failure.
func (s *server) replay(ctx context.Context, items []any) verdict {
	fresh := map[string]string{}
	defer func() {
		for _, ns := range fresh {
			_ = s.cs.CoreV1().Namespaces().Delete(context.WithoutCancel(ctx), ns, metav1.DeleteOptions{})
		}
	}()
	for i, item := range items {
		obj := item.(map[string]any)
		meta, _ := obj["metadata"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
			obj["metadata"] = meta
		}
		ns, _ := meta["namespace"].(string)
		if ns == "" {
			ns = "default"
		}
		if _, ok := fresh[ns]; !ok {
			created, err := s.cs.CoreV1().Namespaces().Create(ctx,
				&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "diff-replay-"}}, metav1.CreateOptions{})
			if err != nil {
				s.t.Errorf("create a namespace: %v", err)
				return verdict{}
			}
			fresh[ns] = created.Name
		}
		meta["namespace"] = fresh[ns]
		if v := s.create(ctx, s.core, "endpoints", obj, &corev1.Endpoints{}, false); !v.accepted {
			return verdict{detail: fmt.Sprintf("items[%d] (created for real): %s", i, v.detail)}
		}
	}
	return verdict{accepted: true}
}

// plain converts a property value to the plain Go value that encoding/json
// marshals: the engine's inputs as the provider would send them.
func plain(v property.Value) any {
	switch {
	case v.IsNull():
		return nil
	case v.IsBool():
		return v.AsBool()
	case v.IsNumber():
		return v.AsNumber()
	case v.IsString():
		return v.AsString()
	case v.IsArray():
		out := make([]any, 0, v.AsArray().Len())
		for _, e := range v.AsArray().All {
			out = append(out, plain(e))
		}
		return out
	case v.IsMap():
		out := map[string]any{}
		for k, e := range v.AsMap().All {
			out[k] = plain(e)
		}
		return out
	}
	panic(fmt.Sprintf("corpus error: %v cannot be sent to the API server", v))
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

func inputsJSON(m property.Map) string {
	b, err := json.Marshal(plain(property.New(m)))
	if err != nil {
		return fmt.Sprint(m)
	}
	return string(b)
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
