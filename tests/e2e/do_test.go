package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// newDoStack is newStack with the plugin installed in the CLI's PULUMI_HOME, as a user
// installs it: `pulumi do <token>` loads the package's installed plugin.
func newDoStack(t *testing.T, kubeconfig string) *stack {
	t.Helper()
	s := newStack(t, kubeconfig)
	s.Run("plugin", "install", "resource", "endpoints", toolchain.ReleaseVersion(t), "--file", tool(t, "TEST_ASSET_PROVIDER"))
	return s
}

// listed is what `pulumi do <token> list --output json` prints.
type listed []struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func (l listed) ids() []string {
	ids := make([]string, 0, len(l))
	for _, r := range l {
		ids = append(ids, r.ID)
	}
	return ids
}

// doList runs `pulumi do <token> list --output json` with flags and decodes what it
// prints.
func (s *stack) doList(token string, flags ...string) listed {
	s.t.Helper()
	out := s.Run(append([]string{"do", token, "list", "--output", "json"}, flags...)...)
	var l listed
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		s.t.Fatalf("pulumi do %s list %v printed no JSON list: %v\n%s", token, flags, err, out)
	}
	return l
}

// `pulumi do <token> list` for both resources, as a user runs it: one namespace, every
// namespace, label and field selectors, the controllers' objects left out and included
// on request, --count, and --all across the API server's pages.
func TestPulumiDoList(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "do-list")
	controllers := cp.SelectedService(t, ns, "svc")
	for i := range 3 {
		outsideSlice(t, cp, ns, fmt.Sprintf("s%d", i), map[string]string{"tier": []string{"web", "api"}[i%2], "run": ns})
	}
	for _, name := range []string{"e1", "e2"} {
		outsideEndpoints(t, cp, ns, name, map[string]string{"set": "a"})
	}
	outsideEndpoints(t, cp, ns, "e3", nil)
	s := newDoStack(t, cp.KubeconfigPath())

	checks := []struct {
		name  string
		token string
		flags []string
		want  []string
	}{
		{"slices of one namespace", spec.EndpointSliceToken, []string{"--namespace", ns},
			[]string{ns + "/s0", ns + "/s1", ns + "/s2"}},
		{"slices with the controller's", spec.EndpointSliceToken, []string{"--namespace", ns, "--include-managed"},
			[]string{ns + "/s0", ns + "/s1", ns + "/s2", ns + "/" + controllers.Name}},
		{"slices by label", spec.EndpointSliceToken, []string{"--namespace", ns, "--label-selector", "tier=web"},
			[]string{ns + "/s0", ns + "/s2"}},
		{"slices by field", spec.EndpointSliceToken, []string{"--namespace", ns, "--field-selector", "metadata.name=s1"},
			[]string{ns + "/s1"}},
		{"slices of every namespace", spec.EndpointSliceToken, []string{"--label-selector", "run=" + ns},
			[]string{ns + "/s0", ns + "/s1", ns + "/s2"}},
		{"Endpoints of one namespace", spec.EndpointsListToken, []string{"--namespace", ns},
			[]string{ns + "?fieldSelector=metadata.name%3De1", ns + "?fieldSelector=metadata.name%3De2",
				ns + "?fieldSelector=metadata.name%3De3"}},
		{"Endpoints with the controller's", spec.EndpointsListToken, []string{"--namespace", ns, "--include-managed=true"},
			[]string{ns + "?fieldSelector=metadata.name%3De1", ns + "?fieldSelector=metadata.name%3De2",
				ns + "?fieldSelector=metadata.name%3De3", ns + "?fieldSelector=metadata.name%3Dsvc"}},
		{"Endpoints by label", spec.EndpointsListToken, []string{"--namespace", ns, "--label-selector", "set=a"},
			[]string{ns + "?fieldSelector=metadata.name%3De1", ns + "?fieldSelector=metadata.name%3De2"}},
		{"count", spec.EndpointSliceToken, []string{"--namespace", ns, "--count", "2"}, []string{ns + "/s0", ns + "/s1"}},
	}
	for _, c := range checks {
		if got := s.doList(c.token, c.flags...).ids(); !slices.Equal(got, c.want) {
			t.Errorf("%s: listed %v, want %v", c.name, got, c.want)
		}
	}
	names := s.doList(spec.EndpointSliceToken, "--label-selector", "tier=api,run="+ns)
	if len(names) != 1 || names[0].Name != ns+"-s1" {
		t.Errorf("every namespace: %+v, want %s/s1 named %s-s1", names, ns, ns)
	}
	if names := s.doList(spec.EndpointSliceToken, "--namespace", ns, "--field-selector", "metadata.name=s1"); names[0].Name != "s1" {
		t.Errorf("one namespace: %+v, want s1 named s1", names)
	}

	// The IDs import as they are listed: one Endpoints object as an EndpointsList.
	s.init("name: do-list\nruntime: yaml\n")
	one := s.doList(spec.EndpointsListToken, "--namespace", ns, "--field-selector", "metadata.name=e2")
	if len(one) != 1 {
		t.Fatalf("e2 lists as %+v", one)
	}
	s.Run("import", spec.EndpointsListToken, one[0].Name, one[0].ID, "--yes", "--non-interactive",
		"--generate-code=false", "--protect=false")
	if out := s.Run("stack", "export"); !strings.Contains(out, `"id": "`+one[0].ID+`"`) {
		t.Errorf("the stack does not record the EndpointsList %s:\n%s", one[0].ID, out)
	}
	s.Run("refresh", "--yes", "--non-interactive", "--expect-no-changes")

	// A bad query names the input.
	out, err := s.Try("do", spec.EndpointSliceToken, "list", "--namespace", ns, "--label-selector", "tier in web")
	if err == nil || !strings.Contains(out, `input labelSelector "tier in web" is not a label selector`) {
		t.Errorf("a bad label selector: err %v\n%s", err, out)
	}
}

// --all follows the continuation tokens across the API server's pages (500 objects
// each when the request gives no page size, as `pulumi do` gives none); without it the
// first page alone is printed.
func TestPulumiDoListAll(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "do-list-all")
	const n = 520
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			_, err := cp.Clientset().CoreV1().Endpoints(ns).Create(t.Context(), &corev1.Endpoints{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("e%03d", i)},
			}, metav1.CreateOptions{})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s := newDoStack(t, cp.KubeconfigPath())
	if first := s.doList(spec.EndpointsListToken, "--namespace", ns); len(first) != 500 {
		t.Errorf("list without --all printed %d results, want the first page of 500", len(first))
	}
	start := time.Now()
	all := s.doList(spec.EndpointsListToken, "--namespace", ns, "--all").ids()
	t.Logf("pulumi do list --all of %d Endpoints (2 pages): %v", n, time.Since(start))
	seen := map[string]bool{}
	for _, id := range all {
		seen[id] = true
	}
	if len(all) != n || len(seen) != n {
		t.Errorf("list --all printed %d results, %d distinct, want %d", len(all), len(seen), n)
	}
	if got := s.doList(spec.EndpointsListToken, "--namespace", ns, "--count", "510"); len(got) != 510 {
		t.Errorf("list --count 510 printed %d results", len(got))
	}
}

// `pulumi do` reads, creates, patches and deletes both resources (create, patch and
// delete with --stateless, which this CLI version needs for them).
func TestPulumiDoCRUD(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "do-crud")
	s := newDoStack(t, cp.KubeconfigPath())
	write := func(name, content string) string {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	run := func(args ...string) map[string]any {
		t.Helper()
		out := s.Run(append([]string{"do", "--output", "json"}, args...)...)
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("pulumi do %v printed no JSON object: %v\n%s", args, err, out)
		}
		return m
	}

	// EndpointSlice.
	// Input files in PCL, which the CLI reads itself (YAML needs the yaml converter plugin).
	created := run("--stateless", spec.EndpointSliceToken, "create", "--yes", "--input", "pcl", "--input-file",
		write("slice.pp", fmt.Sprintf("metadata = { name = \"web\", namespace = %q }\naddressType = \"IPv4\"\n"+
			"endpoints = [{ addresses = [\"10.7.0.1\"] }]\nports = [{ port = 80 }]\n", ns)))
	if created["id"] != ns+"/web" {
		t.Errorf("create printed id %v, want %s/web", created["id"], ns)
	}
	read := run(spec.EndpointSliceToken, "read", ns+"/web")
	if eps, _ := read["endpoints"].([]any); len(eps) != 1 {
		t.Errorf("read printed endpoints %v", read["endpoints"])
	}
	run("--stateless", spec.EndpointSliceToken, "patch", ns+"/web", "--yes", "--input", "pcl", "--input-file",
		write("patch.pp", "endpoints = [{ addresses = [\"10.7.0.1\"] }, { addresses = [\"10.7.0.2\"] }]\n"))
	live, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil || len(live.Endpoints) != 2 {
		t.Fatalf("after patch: %v, %v; want 2 endpoints", live, err)
	}
	// Without --stateless this CLI version refuses patch, and says so (a delete without
	// it deletes a resource of a stack by name).
	if out, err := s.Try("do", spec.EndpointSliceToken, "patch", ns+"/web", "--yes"); err == nil ||
		!strings.Contains(out, "pass --stateless") {
		t.Errorf("patch without --stateless: err %v\n%s", err, out)
	}
	s.Run("do", "--stateless", spec.EndpointSliceToken, "delete", ns+"/web", "--yes")
	if _, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after delete the slice is still there (err %v)", err)
	}
	out, err := s.Try("do", spec.EndpointSliceToken, "read", ns+"/gone")
	if err == nil || !strings.Contains(out, "EndpointSlice "+ns+"/gone") {
		t.Errorf("read of a missing slice: err %v\n%s", err, out)
	}

	// EndpointsList: created as a set, read and patched by the ID its create printed,
	// read by the ID List gives, deleted with its items.
	item := func(name, ip string) string {
		return fmt.Sprintf("{ metadata = { name = %q, namespace = %q, labels = { set = \"x\" } }, "+
			"subsets = [{ addresses = [{ ip = %q }], ports = [{ port = 80 }] }] }", name, ns, ip)
	}
	created = run("--stateless", spec.EndpointsListToken, "create", "--yes", "--input", "pcl", "--input-file",
		write("list.pp", "items = ["+item("a", "10.7.0.3")+", "+item("b", "10.7.0.4")+"]\n"))
	id, _ := created["id"].(string)
	if id == "" {
		t.Fatalf("create printed no id: %v", created)
	}
	listed := s.doList(spec.EndpointsListToken, "--namespace", ns, "--label-selector", "set=x").ids()
	if !slices.Equal(listed, []string{ns + "?fieldSelector=metadata.name%3Da", ns + "?fieldSelector=metadata.name%3Db"}) {
		t.Errorf("the created items list as %v", listed)
	}
	one := run(spec.EndpointsListToken, "read", listed[1])
	if items, _ := one["items"].([]any); len(items) != 1 {
		t.Errorf("read %s printed items %v, want b alone", listed[1], one["items"])
	}
	set := ns + "?labelSelector=set%3Dx"
	if items, _ := run(spec.EndpointsListToken, "read", set)["items"].([]any); len(items) != 2 {
		t.Errorf("read %s printed items %v, want a and b", set, items)
	}
	run("--stateless", spec.EndpointsListToken, "patch", set, "--yes", "--input", "pcl", "--input-file",
		write("list-patch.pp", "items = ["+item("a", "10.7.0.9")+"]\n"))
	a, err := cp.Clientset().CoreV1().Endpoints(ns).Get(t.Context(), "a", metav1.GetOptions{})
	if err != nil || a.Subsets[0].Addresses[0].IP != "10.7.0.9" {
		t.Errorf("after patch: %v, %v; want a at 10.7.0.9", a, err)
	}
	if _, err := cp.Clientset().CoreV1().Endpoints(ns).Get(t.Context(), "b", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the patch dropped item b, which is still there (err %v)", err)
	}
	s.Run("do", "--stateless", spec.EndpointsListToken, "delete", set, "--yes")
	if _, err := cp.Clientset().CoreV1().Endpoints(ns).Get(t.Context(), "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after delete item a is still there (err %v)", err)
	}
}

// In render mode `pulumi do` writes and lists the render directory's manifests, with no
// cluster at all: what `create` rendered, `list` gives by the ID `read` takes.
func TestPulumiDoListRendered(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newDoStack(t, filepath.Join(dir, "no-kubeconfig"))
	r := s.With("PULUMI_ENDPOINTS_RENDER_DIRECTORY=" + dir)
	input := filepath.Join(t.TempDir(), "slice.pp")
	for _, name := range []string{"web", "api"} {
		if err := os.WriteFile(input, []byte(fmt.Sprintf("metadata = { name = %q, namespace = \"apps\" }\n"+
			"addressType = \"IPv4\"\nendpoints = [{ addresses = [\"10.7.0.1\"] }]\n", name)), 0o600); err != nil {
			t.Fatal(err)
		}
		r.Run("do", "--stateless", spec.EndpointSliceToken, "create", "--yes", "--input", "pcl", "--input-file", input)
	}
	out := r.Run("do", spec.EndpointSliceToken, "list", "--namespace", "apps", "--output", "json")
	var l listed
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := l.ids(); !slices.Equal(got, []string{"apps/api", "apps/web"}) {
		t.Errorf("the render directory lists %v, want apps/api and apps/web", got)
	}
	if out := r.Run("do", spec.EndpointSliceToken, "read", "apps/web", "--output", "json"); !strings.Contains(out, "10.7.0.1") {
		t.Errorf("read of a rendered slice:\n%s", out)
	}
}
