package provider

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/propertytest"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/seeded"
)

// What a program in a dynamically typed language can send for any one value: the
// generated test below gives each of these to every setting, every path of a valid
// slice's and list's inputs, and every argument of each function.
const (
	givenNumber       = "a number"
	givenBool         = "a boolean"
	givenString       = "a string"
	givenList         = "a list"
	givenMap          = "an object"
	givenNull         = "null"
	givenUnknown      = "an unknown value"
	givenSecret       = "the valid value, secret"
	givenSecretOfKind = "a secret of the wrong type"
)

var givens = []string{givenNumber, givenBool, givenString, givenList, givenMap, givenNull, givenUnknown, givenSecret, givenSecretOfKind}

// Valid inputs and arguments the walk starts from.
const (
	validSlice = `{"metadata":{"name":"web-1","namespace":"default","labels":{"app":"web"}},"addressType":"IPv4",
		"endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":true},"hostname":"web-0","nodeName":"node-1","zone":"a",
		"hints":{"forZones":[{"name":"a"}]},"targetRef":{"kind":"Pod","name":"web-0","namespace":"default"}}],
		"ports":[{"name":"http","port":80,"protocol":"TCP","appProtocol":"kubernetes.io/h2c"}]}`
	validList = `{"items":[{"metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},
		"subsets":[{"addresses":[{"ip":"10.0.0.1","hostname":"a","nodeName":"n","targetRef":{"kind":"Pod","name":"p"}}],
		"notReadyAddresses":[{"ip":"10.0.0.2"}],"ports":[{"name":"http","port":80,"protocol":"TCP"}]}]}]}`
	validFileArgs   = `{"project":"proj","location":"us","importJobId":"j","importDataFileId":"f"}`
	validPolicyArgs = `{"organizationId":"o","partnerTenantId":"t","proxyConfigId":"c","optionsRequestedPolicyVersion":3}`
)

// wrongTypes makes the values of the walk, from a seed.
type wrongTypes struct{ r *rand.Rand }

// value is what given stands for at a path whose valid value is valid, the text of
// the secret it holds ("" when none), and whether its type is not the one the path
// takes (null and unknown values are not: they are allowed or missing).
func (w wrongTypes) value(given string, valid property.Value) (v property.Value, secret string, wrong bool) {
	switch given {
	case givenNull:
		return property.New(property.Null), "", false
	case givenUnknown:
		return property.New(property.Computed), "", false
	case givenSecret:
		return valid.WithSecret(true), "", false
	case givenSecretOfKind:
		kinds := slices.DeleteFunc([]string{givenNumber, givenBool, givenString, givenList, givenMap},
			func(k string) bool { return k == kindOf(valid) })
		v, _, _ := w.value(kinds[w.r.IntN(len(kinds))], valid)
		secret = w.secretText(v)
		return v.WithSecret(true), secret, true
	}
	switch given {
	case givenNumber:
		v = property.New(float64(w.r.IntN(200000)-100000) / 4)
	case givenBool:
		v = property.New(w.r.IntN(2) == 0)
	case givenString:
		v = property.New("w" + strconv.FormatUint(w.r.Uint64(), 36))
	case givenList:
		v = property.New([]property.Value{property.New("w" + strconv.Itoa(w.r.IntN(1000))), property.New(1.0)})
	case givenMap:
		v = property.New(map[string]property.Value{"k" + strconv.Itoa(w.r.IntN(1000)): property.New("v")})
	}
	return v, "", given != kindOf(valid)
}

// secretText is the text of v a message must not show when v is secret: a string, or
// a number with a fraction no message has by chance; "" when v shows nothing of its own.
func (w wrongTypes) secretText(v property.Value) string {
	switch {
	case v.IsString():
		return v.AsString()
	case v.IsNumber():
		return strconv.FormatFloat(v.AsNumber(), 'g', -1, 64)
	}
	return ""
}

// kindOf is the given kind a valid value is of.
func kindOf(v property.Value) string {
	switch {
	case v.IsNumber():
		return givenNumber
	case v.IsBool():
		return givenBool
	case v.IsString():
		return givenString
	case v.IsArray():
		return givenList
	}
	return givenMap
}

// pathsOf lists every path within v (not v itself) in the engine's syntax, each with
// the value there.
func pathsOf(prefix string, v property.Value, out map[string]property.Value) {
	switch {
	case v.IsMap():
		for k, e := range v.AsMap().All {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = e
			pathsOf(p, e, out)
		}
	case v.IsArray():
		for i, e := range v.AsArray().All {
			p := fmt.Sprintf("%s[%d]", prefix, i)
			out[p] = e
			pathsOf(p, e, out)
		}
	}
}

// pathElem matches one element of a path written by pathsOf.
var pathElem = regexp.MustCompile(`[^.\[\]]+|\[\d+\]`)

// replaced is v with the value at path (written by pathsOf) replaced by with.
func replaced(v property.Value, path string, with property.Value) property.Value {
	return replacedAt(v, pathElem.FindAllString(path, -1), with)
}

func replacedAt(v property.Value, elems []string, with property.Value) property.Value {
	if len(elems) == 0 {
		return with
	}
	if i, err := strconv.Atoi(strings.Trim(elems[0], "[]")); err == nil && strings.HasPrefix(elems[0], "[") {
		items := v.AsArray().AsSlice()
		items[i] = replacedAt(items[i], elems[1:], with)
		return property.New(items)
	}
	m := v.AsMap()
	return property.New(m.Set(elems[0], replacedAt(m.Get(elems[0]), elems[1:], with)))
}

// names tells whether a failure's path is path or one within it, with ["key"] written
// as .key.
func names(path, failurePath string) bool {
	norm := func(s string) string { return strings.NewReplacer(`["`, ".", `"]`, "").Replace(s) }
	p, f := norm(path), norm(failurePath)
	return f == p || strings.HasPrefix(f, p+".") || strings.HasPrefix(f, p+"[")
}

// errorNames tells whether an error names path: as a word of its text.
func errorNames(path string, err error) bool {
	return regexp.MustCompile(`(^|[^\w.\[])` + regexp.QuoteMeta(path) + `($|[^\w\[])`).MatchString(err.Error())
}

// wrongTypesCase is one call of the walk: at path (a setting, an input path or an
// argument) of area, the value given.
type wrongTypesCase struct {
	area, path, given string
	value             property.Value
	secret            string
	wrong             bool
}

// answer is what the provider answered one case: each failure as path and reason,
// and the error.
type answer struct {
	failures [][2]string
	err      error
	// lookup says that the call was a lookup's: the local Google API answers 404 to
	// valid arguments.
	lookup bool
}

// judge fails t unless a case of a wrong type is failed naming its path, a valid value
// made secret is accepted, and no answer shows the text of a secret given.
func (c wrongTypesCase) judge(t *testing.T, a answer) {
	t.Helper()
	var texts []string
	named := false
	for _, f := range a.failures {
		texts = append(texts, f[1])
		named = named || names(c.path, f[0])
	}
	if a.err != nil {
		texts = append(texts, a.err.Error())
		named = named || errorNames(c.path, a.err)
	}
	if c.given == givenSecret && (len(a.failures) > 0 || a.err != nil && !a.lookup) {
		t.Errorf("%s %s given its valid value secret: answered %q, want it accepted", c.area, c.path, texts)
	}
	if c.wrong && !named {
		t.Errorf("%s %s given %s (%v): no failure or error names it; answered %q", c.area, c.path, c.given, c.value, texts)
	}
	for _, text := range texts {
		if c.secret != "" && strings.Contains(text, c.secret) {
			t.Errorf("%s %s given %s: the answer shows the secret %q: %s", c.area, c.path, c.given, c.secret, text)
		}
	}
}

// Every setting, every path of a valid slice's and list's inputs and every argument of
// each function, given a number, a boolean, a string, a list, an object, null, an
// unknown value, its valid value secret and a secret of the wrong type, is answered:
// no call panics (the guard would answer it as an Internal error). A setting goes to
// CheckConfig, DiffConfig both ways and Configure; a slice's or a list's inputs to
// Check, then as a hand-edited state to Diff, Read, Update and Delete.
// A value of the wrong type is failed naming the setting, path or argument, a valid
// value made secret is accepted, and no answer shows the text of a secret.
// WRONG_TYPES_SEED picks other values.
func TestWrongTypesAreAnswered(t *testing.T) {
	t.Parallel()
	seed := seeded.FromEnv(t, "WRONG_TYPES_SEED", 1)
	w := wrongTypes{r: rand.New(rand.NewPCG(seed, seed))} //nolint:gosec // reproducible test values
	fp := newFuzzProvider(t)
	counts := map[string]int{}
	for _, c := range wrongTypeCases(t, w) {
		counts[c.area]++
		switch c.area {
		case "setting":
			c.judge(t, settingAnswer(t, fp, c))
			c.judge(t, configureAnswer(t, fp, c))
		case "function " + spec.ImportDataFileToken, "function " + spec.ProxyConfigIamPolicyToken:
			c.judge(t, invokeAnswer(t, fp, c))
		default:
			c.judge(t, checkAnswer(t, fp, c))
		}
	}
	total := 0
	var parts []string
	for _, area := range slices.Sorted(maps.Keys(counts)) {
		total += counts[area]
		parts = append(parts, fmt.Sprintf("%d %s", counts[area], area))
	}
	// Printed, not logged, so that `make test` shows how many cases ran.
	fmt.Printf("TestWrongTypesAreAnswered: %d cases (seed %d; WRONG_TYPES_SEED picks others): %s\n",
		total, seed, strings.Join(parts, ", "))
}

// wrongTypeCases lists the walk's cases.
func wrongTypeCases(t *testing.T, w wrongTypes) []wrongTypesCase {
	t.Helper()
	var cases []wrongTypesCase
	add := func(area, doc string) {
		root := property.New(mustObject(t, doc))
		paths := map[string]property.Value{}
		pathsOf("", root, paths)
		for _, path := range slices.Sorted(maps.Keys(paths)) {
			for _, given := range givens {
				v, secret, wrong := w.value(given, paths[path])
				cases = append(cases, wrongTypesCase{area: area, path: path, given: given,
					value: replaced(root, path, v), secret: secret, wrong: wrong})
			}
		}
	}
	add(spec.EndpointSliceToken, validSlice)
	add(spec.EndpointsListToken, validList)
	add("function "+spec.ImportDataFileToken, validFileArgs)
	add("function "+spec.ProxyConfigIamPolicyToken, validPolicyArgs)
	vars := spec.MustLoad().Config.Variables
	for _, key := range slices.Sorted(maps.Keys(vars)) {
		valid := property.New("x")
		switch {
		case vars[key].Type == "number" || vars[key].Type == "integer":
			valid = property.New(1.0)
		case vars[key].Type == "boolean":
			valid = property.New(false)
		case strings.HasSuffix(key, "Timeout"):
			valid = property.New("30s")
		case configChoices[key] != nil:
			valid = property.New(configChoices[key][0])
		}
		for _, given := range givens {
			v, secret, wrong := w.value(given, valid)
			if given == givenString && !valid.IsString() {
				wrong = true // a string that says no number or boolean: w's strings start with "w"
			}
			cases = append(cases, wrongTypesCase{area: "setting", path: key, given: given,
				value: property.New(property.NewMap(map[string]property.Value{key: v})), secret: secret, wrong: wrong})
		}
	}
	return cases
}

// mustObject decodes a JSON object of the test.
func mustObject(t *testing.T, doc string) property.Map {
	t.Helper()
	m, ok := propertytest.ObjectFromJSON([]byte(doc))
	if !ok {
		t.Fatalf("not a JSON object: %s", doc)
	}
	return m
}

// settingAnswer is CheckConfig's answer; DiffConfig, from no configuration and to it,
// must answer too.
func settingAnswer(t *testing.T, fp *fuzzProvider, c wrongTypesCase) answer {
	t.Helper()
	args := marshalled(t, offline(c.value.AsMap()))
	resp, err := fp.srv.CheckConfig(t.Context(), &rpc.CheckRequest{Urn: fuzzProviderURN, News: args})
	notPanicked(t, "CheckConfig", err)
	none := marshalled(t, property.Map{})
	_, diffErr := fp.srv.DiffConfig(t.Context(), &rpc.DiffRequest{Urn: fuzzProviderURN, Olds: none, OldInputs: none, News: args})
	notPanicked(t, "DiffConfig", diffErr)
	_, diffErr = fp.srv.DiffConfig(t.Context(), &rpc.DiffRequest{Urn: fuzzProviderURN, Olds: args, OldInputs: args, News: none})
	notPanicked(t, "DiffConfig from an old configuration", diffErr)
	return answer{failures: failuresOf(resp.GetFailures()), err: err}
}

// configureAnswer configures a provider of its own: Configure changes the provider.
func configureAnswer(t *testing.T, fp *fuzzProvider, c wrongTypesCase) answer {
	t.Helper()
	srv, err := newServer(t.Context(), noEnv).rpcServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = srv.Configure(t.Context(), &rpc.ConfigureRequest{Args: marshalled(t, offline(c.value.AsMap()))})
	notPanicked(t, "Configure", err)
	return answer{err: err}
}

// checkAnswer is Check's answer; Diff, from the valid inputs and to them, must answer too.
func checkAnswer(t *testing.T, fp *fuzzProvider, c wrongTypesCase) answer {
	t.Helper()
	urn := resourceURN(c.area == spec.EndpointsListToken)
	doc := validSlice
	if c.area == spec.EndpointsListToken {
		doc = validList
	}
	ctx, valid, in := t.Context(), marshalled(t, mustObject(t, doc)), marshalled(t, c.value.AsMap())
	resp, err := fp.srv.Check(ctx, &rpc.CheckRequest{Urn: urn, News: in, Olds: valid, RandomSeed: []byte("wrong types")})
	notPanicked(t, "Check", err)
	_, diffErr := fp.srv.Diff(ctx, &rpc.DiffRequest{Urn: urn, Id: "default/web-1", Olds: valid, OldInputs: valid, News: in})
	notPanicked(t, "Diff", diffErr)
	_, diffErr = fp.srv.Diff(ctx, &rpc.DiffRequest{Urn: urn, Id: "default/web-1", Olds: in, OldInputs: in, News: valid})
	notPanicked(t, "Diff from a hand-edited state", diffErr)
	fromState(t, fp, urn, in, valid)
	return answer{failures: failuresOf(resp.GetFailures()), err: err}
}

// fromState hands state, as a hand-edited checkpoint holds it, to Read, Update (a
// preview, to the valid inputs) and Delete: each must answer.
func fromState(t *testing.T, fp *fuzzProvider, urn string, state, valid *structpb.Struct) {
	t.Helper()
	ctx, id := t.Context(), "default/web-1"
	_, err := fp.srv.Read(ctx, &rpc.ReadRequest{Urn: urn, Id: id, Properties: state, Inputs: state})
	notPanicked(t, "Read", err)
	_, err = fp.srv.Update(ctx, &rpc.UpdateRequest{Urn: urn, Id: id, Olds: state, OldInputs: state, News: valid, Preview: true})
	notPanicked(t, "Update", err)
	_, err = fp.srv.Delete(ctx, &rpc.DeleteRequest{Urn: urn, Id: id, Properties: state, OldInputs: state})
	notPanicked(t, "Delete", err)
}

func invokeAnswer(t *testing.T, fp *fuzzProvider, c wrongTypesCase) answer {
	t.Helper()
	token := strings.TrimPrefix(c.area, "function ")
	resp, err := fp.srv.Invoke(t.Context(), &rpc.InvokeRequest{Tok: token, Args: marshalled(t, c.value.AsMap())})
	notPanicked(t, "Invoke", err)
	return answer{failures: failuresOf(resp.GetFailures()), err: err, lookup: true}
}

func failuresOf(fs []*rpc.CheckFailure) [][2]string {
	out := make([][2]string, len(fs))
	for i, f := range fs {
		out[i] = [2]string{f.GetProperty(), f.GetReason()}
	}
	return out
}
