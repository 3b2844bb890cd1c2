package lifecycle_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/blang/semver"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/endpoints-provider/pulumi-endpoints/provider"
	"github.com/endpoints-provider/pulumi-endpoints/tests/controlplane"
)

var logs = &logRecorder{}

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(logs))
	os.Exit(controlplane.RunTestsWith(m, controlplane.Options{AllControllers: true}))
}

func controlPlane(t *testing.T) *controlplane.ControlPlane { return controlplane.Shared(t) }

// newProvider returns a provider configured for the control plane with the given
// kubeconfig (the admin's when nil).
func newProvider(t *testing.T, kubeconfig []byte, extra map[string]property.Value) integration.Server {
	t.Helper()
	cp := controlPlane(t)
	if kubeconfig == nil {
		kubeconfig = cp.Kubeconfig()
	}
	srv, err := integration.NewServer(t.Context(), provider.Name, semver.MustParse("0.1.0"),
		integration.WithProvider(provider.New(t.Context())))
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]property.Value{"kubeconfig": property.New(string(kubeconfig))}
	for k, v := range extra {
		args[k] = v
	}
	if err := srv.Configure(p.ConfigureRequest{Args: property.NewMap(args)}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return srv
}

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T) string {
	t.Helper()
	cs := controlPlane(t).Clientset()
	ns, err := cs.CoreV1().Namespaces().Create(t.Context(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "t-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

func clientset(t *testing.T) kubernetes.Interface { return controlPlane(t).Clientset() }

func urn(typ, name string) resource.URN {
	return resource.NewURN("test", "lifecycle", "", tokens.Type("endpoints:"+typ), name)
}

var (
	sliceType = "discovery.k8s.io/v1:EndpointSlice"
	listType  = "core/v1:EndpointsList"
)

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

// logRecorder keeps every log line the provider writes through slog (the integration
// server has no engine to send them to).
type logRecorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.buf, "%s %s", r.Level, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&l.buf, " %s=%v", a.Key, a.Value)
		return true
	})
	l.buf.WriteByte('\n')
	return nil
}
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecorder) WithGroup(string) slog.Handler      { return l }

// lines returns the recorded lines that contain every one of the substrings.
func (l *logRecorder) lines(subs ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(l.buf.String(), "\n") {
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(line, s)
		}
		if ok && line != "" {
			out = append(out, line)
		}
	}
	return out
}

func createNamespace(t *testing.T, name string) {
	t.Helper()
	if _, err := clientset(t).CoreV1().Namespaces().Create(t.Context(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
