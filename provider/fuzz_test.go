package provider

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/propertytest"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// The fuzz targets drive the plugin's gRPC server as Serve builds it (pulumi-go-provider's
// server, protocolServer and the guard against panics) with what a dynamically typed
// program or a hand-edited checkpoint can send: inputs, configuration, arguments and
// states written as JSON documents with the markers of package propertytest ("$unknown",
// {"$secret": v}). No cluster is needed: the provider renders into a temporary
// directory, and its lookups reach a local server that answers what the fuzzer gives.
//
// Their property: no call panics (the guard would answer it as an Internal error naming
// the call, which fails the target), and a configuration CheckConfig rejects is one
// Configure rejects too. Seeds are in testdata/fuzz/<target>/ and in fuzzSeeds.

// URNs of the calls.
const (
	fuzzSliceURN    = "urn:pulumi:dev::fuzz::" + spec.EndpointSliceToken + "::web"
	fuzzListURN     = "urn:pulumi:dev::fuzz::" + spec.EndpointsListToken + "::web"
	fuzzProviderURN = "urn:pulumi:dev::fuzz::pulumi:providers:endpoints::default"
)

// fuzzProvider is the plugin's gRPC server configured for the fuzz targets, and the
// answer its lookups get.
type fuzzProvider struct {
	srv rpc.ResourceProviderServer
	// dir holds the render directory, "manifests", and nothing else.
	dir string
	// lookupAnswer is the body of the local Google API's answers (status 200); nil
	// answers 404.
	lookupAnswer atomic.Pointer[[]byte]
}

// newFuzzProvider starts the plugin's gRPC server, rendering into a temporary directory,
// its lookups at a local server, for the life of tb.
func newFuzzProvider(tb testing.TB) *fuzzProvider {
	tb.Helper()
	fp := &fuzzProvider{}
	google := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		body := fp.lookupAnswer.Load()
		if body == nil {
			http.Error(w, `{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(*body)
	}))
	tb.Cleanup(google.Close)
	srv, err := newServer(tb.Context(), noEnv).rpcServer(nil)
	if err != nil {
		tb.Fatal(err)
	}
	fp.srv, fp.dir = srv, tb.TempDir()
	args := property.NewMap(map[string]property.Value{
		"renderDirectory":               property.New(filepath.Join(fp.dir, "manifests")),
		"accessToken":                   property.New("fuzz-token"),
		"project":                       property.New("proj"),
		"migrationCenterCustomEndpoint": property.New(google.URL),
		"beyondcorpCustomEndpoint":      property.New(google.URL),
		"lookupTimeout":                 property.New("5s"),
	})
	if _, err := srv.Configure(tb.Context(), &rpc.ConfigureRequest{Args: marshalled(tb, args)}); err != nil {
		tb.Fatalf("Configure: %v", err)
	}
	return fp
}

// marshalled is m as the engine sends it: unknowns and secrets kept.
func marshalled(tb testing.TB, m property.Map) *structpb.Struct {
	tb.Helper()
	s, err := plugin.MarshalProperties(resource.ToResourcePropertyMap(m),
		plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true})
	if err != nil {
		tb.Fatalf("marshalling %v: %v", m, err)
	}
	return s
}

// fuzzObjectOrEmpty is propertytest.ObjectFromJSON, with an empty map for what is not an object.
func fuzzObjectOrEmpty(data []byte) property.Map {
	m, _ := propertytest.ObjectFromJSON(data)
	return m
}

// notPanicked fails t when err is the guard's answer to a panic.
func notPanicked(t *testing.T, call string, err error) {
	t.Helper()
	if status.Code(err) == codes.Internal && strings.Contains(err.Error(), "internal error in ") {
		t.Fatalf("%s panicked: %v", call, err)
	}
}

// resourceURN is the URN of a list or a slice.
func resourceURN(list bool) string {
	if list {
		return fuzzListURN
	}
	return fuzzSliceURN
}

// FuzzCheckConfig sends a provider configuration to CheckConfig, Configure and, as the
// old configuration, to DiffConfig.
func FuzzCheckConfig(f *testing.F) {
	f.Add([]byte(`{}`))
	fp := newFuzzProvider(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		args, ok := propertytest.ObjectFromJSON(data)
		if !ok {
			return
		}
		args = offline(args)
		ctx := t.Context()
		in := marshalled(t, args)
		checked, err := fp.srv.CheckConfig(ctx, &rpc.CheckRequest{Urn: fuzzProviderURN, News: in, Olds: in})
		notPanicked(t, "CheckConfig", err)
		_, diffErr := fp.srv.DiffConfig(ctx, &rpc.DiffRequest{
			Urn: fuzzProviderURN, Olds: in, OldInputs: in, News: marshalled(t, property.Map{}),
		})
		notPanicked(t, "DiffConfig", diffErr)
		_, err = fp.srv.Configure(ctx, &rpc.ConfigureRequest{Args: in})
		notPanicked(t, "Configure", err)
		if len(checked.GetFailures()) > 0 && err == nil {
			t.Errorf("CheckConfig failed %v, yet Configure accepted the same configuration", checked.GetFailures())
		}
	})
}

// offline points a kubeconfig setting given as a path (the fuzzer's strings) at a file
// that does not exist: CheckConfig reads the file it names, and the fuzzer is not to
// read the machine's files. Contents (with a line break) are kept.
func offline(args property.Map) property.Map {
	v := args.Get("kubeconfig")
	if v.IsString() && !strings.Contains(v.AsString(), "\n") {
		return args.Set("kubeconfig", property.New("/nonexistent/fuzz/kubeconfig").WithSecret(v.Secret()))
	}
	return args
}

// FuzzCheck sends a slice's or a list's inputs, new and old, to Check.
func FuzzCheck(f *testing.F) {
	f.Add(false, []byte(`{}`), []byte(`{}`))
	fp := newFuzzProvider(f)
	f.Fuzz(func(t *testing.T, list bool, olds, news []byte) {
		in, ok := propertytest.ObjectFromJSON(news)
		if !ok {
			return
		}
		_, err := fp.srv.Check(t.Context(), &rpc.CheckRequest{
			Urn: resourceURN(list), News: marshalled(t, in), Olds: marshalled(t, fuzzObjectOrEmpty(olds)),
			RandomSeed: []byte("fuzz"),
		})
		notPanicked(t, "Check", err)
	})
}

// FuzzDiff sends a slice's or a list's state and new inputs to Diff.
func FuzzDiff(f *testing.F) {
	f.Add(false, "default/web", []byte(`{}`), []byte(`{}`))
	fp := newFuzzProvider(f)
	f.Fuzz(func(t *testing.T, list bool, id string, olds, news []byte) {
		state, ok := propertytest.ObjectFromJSON(olds)
		if !ok {
			return
		}
		old := marshalled(t, state)
		_, err := fp.srv.Diff(t.Context(), &rpc.DiffRequest{
			Urn: resourceURN(list), Id: id, Olds: old, OldInputs: old, News: marshalled(t, fuzzObjectOrEmpty(news)),
		})
		notPanicked(t, "Diff", err)
	})
}

// FuzzState hands a slice's or a list's state, as a hand-edited or old checkpoint
// holds it, to Read (refresh, and import with the ID alone), Update (preview and
// update) and Delete, in a render directory.
func FuzzState(f *testing.F) {
	f.Add(false, "default/web", []byte(`{}`))
	fp := newFuzzProvider(f)
	f.Fuzz(func(t *testing.T, list bool, id string, data []byte) {
		state, ok := propertytest.ObjectFromJSON(data)
		if !ok {
			return
		}
		ctx, urn, s := t.Context(), resourceURN(list), marshalled(t, state)
		_, err := fp.srv.Read(ctx, &rpc.ReadRequest{Urn: urn, Id: id, Properties: s, Inputs: s})
		notPanicked(t, "Read", err)
		_, err = fp.srv.Read(ctx, &rpc.ReadRequest{Urn: urn, Id: id})
		notPanicked(t, "Read (import)", err)
		for _, preview := range []bool{true, false} {
			_, err = fp.srv.Update(ctx, &rpc.UpdateRequest{Urn: urn, Id: id, Olds: s, OldInputs: s, News: s, Preview: preview})
			notPanicked(t, "Update", err)
		}
		fp.onlyManifests(t)
		_, err = fp.srv.Delete(ctx, &rpc.DeleteRequest{Urn: urn, Id: id, Properties: s, OldInputs: s})
		notPanicked(t, "Delete", err)
		fp.onlyManifests(t)
	})
}

// onlyManifests fails t when a file beside the render directory was written: a state
// or ID that reached outside it.
func (fp *fuzzProvider) onlyManifests(t *testing.T) {
	t.Helper()
	entries, err := os.ReadDir(fp.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "manifests" {
			t.Fatalf("%s was written beside the render directory %s", filepath.Join(fp.dir, e.Name()), filepath.Join(fp.dir, "manifests"))
		}
	}
}

// FuzzInvoke sends arguments to a lookup, whose request (if its arguments pass) the
// local Google API answers with the fuzzer's body.
func FuzzInvoke(f *testing.F) {
	f.Add(false, []byte(`{}`), []byte(`{}`))
	fp := newFuzzProvider(f)
	f.Fuzz(func(t *testing.T, policy bool, args, answer []byte) {
		in, ok := propertytest.ObjectFromJSON(args)
		if !ok {
			return
		}
		token := spec.ImportDataFileToken
		if policy {
			token = spec.ProxyConfigIamPolicyToken
		}
		fp.lookupAnswer.Store(&answer)
		_, err := fp.srv.Invoke(t.Context(), &rpc.InvokeRequest{Tok: token, Args: marshalled(t, in)})
		notPanicked(t, "Invoke", err)
	})
}

// FuzzAltered alters one path of a valid slice's or list's inputs (the path numbered
// path, as TestWrongTypesAreAnswered walks them) to a value of the fuzzer's, of the
// kind numbered kind, and hands the document to Check, to Diff both ways, and as a
// hand-edited state to Read, Update and Delete. Where the JSON targets mostly mutate
// the syntax, this one reaches every typed field with any string or number.
func FuzzAltered(f *testing.F) {
	f.Add(false, uint16(3), uint8(0), "10.0.0.1/../x", 80.5)
	f.Add(true, uint16(7), uint8(1), "", -1.0)
	fp := newFuzzProvider(f)
	docs := map[bool]property.Value{}
	paths := map[bool][]string{}
	for list, doc := range map[bool]string{false: validSlice, true: validList} {
		root, _ := propertytest.ObjectFromJSON([]byte(doc))
		docs[list] = property.New(root)
		all := map[string]property.Value{}
		pathsOf("", docs[list], all)
		paths[list] = slices.Sorted(maps.Keys(all))
	}
	f.Fuzz(func(t *testing.T, list bool, path uint16, kind uint8, text string, number float64) {
		if !utf8.ValidString(text) {
			return // the engine's strings are UTF-8: marshalling refuses others
		}
		values := []property.Value{
			property.New(text), property.New(number), property.New(number != 0),
			property.New([]property.Value{property.New(text), property.New(number)}),
			property.New(map[string]property.Value{text: property.New(number)}),
			property.New(text).WithSecret(true), property.New(property.Computed), property.New(property.Null),
		}
		v := values[int(kind)%len(values)]
		at := paths[list][int(path)%len(paths[list])]
		c := wrongTypesCase{area: spec.EndpointSliceToken, path: at, value: replaced(docs[list], at, v)}
		if list {
			c.area = spec.EndpointsListToken
		}
		checkAnswer(t, fp, c)
	})
}
