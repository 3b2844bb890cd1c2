package lifecycle_test

import (
	"fmt"
	"log/slog"
	"os"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/client-go/kubernetes"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/inprocess"
)

// logs keeps every log line the provider writes (the integration server has no
// engine to send them to).
var logs = &inprocess.Log{}

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(logs))
	os.Exit(controlplane.RunTestsWith(m, controlplane.Options{AllControllers: true}))
}

// newProvider returns a provider configured for the shared control plane with the
// given kubeconfig (the admin's when nil).
func newProvider(t *testing.T, kubeconfig []byte, extra map[string]property.Value) integration.Server {
	t.Helper()
	if kubeconfig == nil {
		return newProviderOn(t, controlplane.Shared(t), extra)
	}
	return inprocess.New(t, kubeconfig, extra)
}

// newProviderOn returns a provider configured for cp with its admin's kubeconfig.
func newProviderOn(t *testing.T, cp *controlplane.ControlPlane, extra map[string]property.Value) integration.Server {
	t.Helper()
	return inprocess.New(t, cp.Kubeconfig(), extra)
}

// newNamespace creates a namespace of the shared control plane for one test.
func newNamespace(t *testing.T) string {
	t.Helper()
	return newNamespaceOn(t, controlplane.Shared(t))
}

// newNamespaceOn creates a namespace of cp for one test. (On the oldest minor's
// control plane, which runs no namespace controller, its deletion at the end of the
// test never finishes: it stays Terminating, which no test minds.)
func newNamespaceOn(t *testing.T, cp *controlplane.ControlPlane) string {
	t.Helper()
	return cp.Namespace(t, "t")
}

func clientset(t *testing.T) kubernetes.Interface { return controlplane.Shared(t).Clientset() }

// windowEnd is one end of the window of Kubernetes minors the provider supports: the
// test binary's shared control plane of that minor.
type windowEnd struct {
	name  string // "newest" or "oldest"
	minor int    // the minor its API server must run
	plane func(testing.TB) *controlplane.ControlPlane
}

// windowEnds are both ends of the window: the newest minor's control plane, with every
// controller (controlplane.Shared), and the oldest minor's API server alone
// (controlplane.SharedOldest: no controller manager, so no garbage collector).
var windowEnds = []windowEnd{
	{"newest", validate.NewestMinor, controlplane.Shared},
	{"oldest", validate.OldestMinor, controlplane.SharedOldest},
}

// onBothEnds runs test once per end of the window, in parallel subtests named by the
// API server's version ("v1.37.2", "v1.32.13"), each with the end's control plane
// (started once per test binary, shared with the other tests).
func onBothEnds(t *testing.T, test func(t *testing.T, cp *controlplane.ControlPlane)) {
	t.Helper()
	for _, end := range windowEnds {
		cp := end.plane(t)
		minor, version := cp.Version()
		// The oldest end is any minor of the window under `make test-minors`, which
		// runs these tests against each; `make test` gives it the oldest.
		if minor != end.minor && (end.name == "newest" || minor < validate.OldestMinor || minor > validate.NewestMinor) {
			t.Fatalf("the %s end's control plane runs Kubernetes %s, want 1.%d", end.name, version, end.minor)
		}
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			test(t, cp)
		})
	}
}

func urn(typ, name string) resource.URN {
	return resource.NewURN("test", "lifecycle", "", tokens.Type(typ), name)
}

// urnOn is urn for a resource of a stack of cp's own, named by its API server's
// version: tests that run on both ends of the window give their resources the same
// logical names there and can still tell their log lines apart.
func urnOn(cp *controlplane.ControlPlane, typ, name string) resource.URN {
	_, version := cp.Version()
	return resource.NewURN(tokens.QName("test-"+version), "lifecycle", "", tokens.Type(typ), name)
}

// obj builds a property map from alternating keys and values; values may be Go
// strings, numbers, bools, maps, slices or property.Values.
func obj(kv ...any) property.Map {
	m := map[string]property.Value{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = val(kv[i+1])
	}
	return property.NewMap(m)
}

func val(x any) property.Value {
	switch v := x.(type) {
	case property.Value:
		return v
	case property.Map:
		return property.New(v)
	case string:
		return property.New(v)
	case int:
		return property.New(float64(v))
	case bool:
		return property.New(v)
	case []any:
		arr := make([]property.Value, len(v))
		for i, e := range v {
			arr[i] = val(e)
		}
		return property.New(arr)
	default:
		panic(fmt.Sprintf("val: unsupported %T", x))
	}
}

func list(xs ...any) []any { return xs }

// check runs Check and fails the test on failures.
func check(t *testing.T, srv integration.Server, u resource.URN, olds, news property.Map) property.Map {
	t.Helper()
	resp, err := srv.Check(p.CheckRequest{Urn: u, State: olds, Inputs: news})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if len(resp.Failures) > 0 {
		t.Fatalf("Check failures: %+v", resp.Failures)
	}
	return resp.Inputs
}

func getPath(t *testing.T, m property.Map, path string) property.Value {
	t.Helper()
	pp, err := resource.ParsePropertyPath(path)
	if err != nil {
		t.Fatal(err)
	}
	v := property.New(m)
	for _, seg := range pp {
		switch s := seg.(type) {
		case string:
			if !v.IsMap() {
				return property.New(property.Null)
			}
			v = v.AsMap().Get(s)
		case int:
			if !v.IsArray() || s >= v.AsArray().Len() {
				return property.New(property.Null)
			}
			v = v.AsArray().Get(s)
		}
	}
	return v
}

func getString(t *testing.T, m property.Map, path string) string {
	t.Helper()
	v := getPath(t, m, path)
	if !v.IsString() {
		t.Fatalf("%s is %v, not a string", path, v)
	}
	return v.AsString()
}

// createNamespace creates the namespace name for the rest of the test.
func createNamespace(t *testing.T, name string) {
	t.Helper()
	controlplane.Shared(t).NamedNamespace(t, name)
}
