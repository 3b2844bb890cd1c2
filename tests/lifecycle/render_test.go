package lifecycle_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/inprocess"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// renderProvider returns a provider that renders to dir, with a kubeconfig setting
// naming a file that does not exist: render mode must read none.
func renderProvider(t *testing.T, dir string, extra map[string]property.Value) integration.Server {
	t.Helper()
	srv := inprocess.Start(t)
	args := map[string]property.Value{
		"renderDirectory": property.New(dir),
		"kubeconfig":      property.New(filepath.Join(t.TempDir(), "missing-kubeconfig")),
	}
	for k, v := range extra {
		args[k] = v
	}
	if err := srv.Configure(p.ConfigureRequest{Args: property.NewMap(args)}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return srv
}

// renderProgram is a program of one slice named by generateName, one autonamed slice
// and a list of two Endpoints, one named by generateName.
func renderProgram(ns string) map[string]property.Map {
	generated := sliceInputs(ns, "IPv4", "10.0.0.2", 81)
	generated = generated.Set("metadata", property.New(obj("namespace", ns, "generateName", "gen-")))
	genItem := endpointsItem(ns, "", "10.0.1.2", 8081)
	genItem = genItem.Set("metadata", property.New(obj("namespace", ns, "generateName", "item-")))
	return map[string]property.Map{
		"web":   sliceInputs(ns, "IPv4", "10.0.0.1", 80),
		"gen":   generated,
		"items": items(endpointsItem(ns, "fixed", "10.0.1.1", 8080, "app", "web"), genItem),
	}
}

func renderURN(name string) string {
	if name == "items" {
		return spec.EndpointsListToken
	}
	return spec.EndpointSliceToken
}

// TestRenderFiles: each object is a manifest named after its apiVersion, kind,
// namespace and name, holding apiVersion and kind; the outputs hold what is known
// without a server, with the names the provider picked; rendering again changes no
// byte (nor the file's modification time), and a second rendering of the same
// program elsewhere writes the same bytes.
func TestRenderFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := renderProvider(t, dir, nil)
	list := urn(spec.EndpointsListToken, "items")
	checked := check(t, srv, list, property.Map{}, items(endpointsItem("", "fixed", "10.0.1.1", 8080)))
	if got := getString(t, checked, "items[0].metadata.namespace"); got != "default" {
		t.Errorf("namespace of an item that names none = %q, want default", got)
	}
	created, err := srv.Create(p.CreateRequest{Urn: list, Properties: checked})
	if err != nil {
		t.Fatal(err)
	}
	want := "apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: fixed\n  namespace: default\nsubsets:\n" +
		"- addresses:\n  - ip: 10.0.1.1\n  ports:\n  - name: http\n    port: 8080\n    protocol: TCP\n"
	file := filepath.Join(dir, "v1-Endpoints-default-fixed.yaml")
	if got := toolchain.ReadFile(t, file); got != want {
		t.Errorf("%s:\n%s\nwant:\n%s", file, got, want)
	}
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation"} {
		if v := getPath(t, created.Properties, "items[0].metadata."+f); !v.IsNull() {
			t.Errorf("outputs hold metadata.%s = %v, which only a server knows", f, v)
		}
	}
	if got := getString(t, created.Properties, "items[0].subsets[0].ports[0].protocol"); got != "TCP" {
		t.Errorf("outputs' protocol = %q, want the default TCP", got)
	}

	first := renderAll(t, srv, dir, "ns1")
	otherDir := t.TempDir()
	second := renderAll(t, renderProvider(t, otherDir, nil), otherDir, "ns1")
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range first.files {
			if !yield(k) {
				return
			}
		}
	})
	web, gen, item := first.name("web"), first.name("gen"), first.name("items[1]")
	wantNames := []string{
		"discovery.k8s.io_v1-EndpointSlice-ns1-" + gen + ".yaml",
		"discovery.k8s.io_v1-EndpointSlice-ns1-" + web + ".yaml",
		"v1-Endpoints-default-fixed.yaml",
		"v1-Endpoints-ns1-fixed.yaml",
		"v1-Endpoints-ns1-" + item + ".yaml",
	}
	slices.Sort(wantNames)
	if !reflect.DeepEqual(names, wantNames) {
		t.Fatalf("files = %v, want %v", names, wantNames)
	}
	if !strings.HasPrefix(gen, "gen-") || len(gen) != len("gen-")+5 || !strings.HasPrefix(item, "item-") {
		t.Errorf("generated names %q, %q: want gen-<5>, item-<5>", gen, item)
	}
	for _, f := range names {
		obj := map[string]any{}
		if err := yaml.Unmarshal([]byte(first.files[f]), &obj); err != nil || obj["apiVersion"] == nil || obj["kind"] == nil {
			t.Errorf("%s has no apiVersion or kind (%v):\n%s", f, err, first.files[f])
		}
	}
	// The second rendering names its objects anew; with the names swapped, its bytes
	// are the same.
	for _, f := range []string{"v1-Endpoints-ns1-fixed.yaml"} {
		if first.files[f] != second.files[f] {
			t.Errorf("%s differs between two renderings:\n%s\n%s", f, first.files[f], second.files[f])
		}
	}
	if a, b := strings.ReplaceAll(first.file(t, "web"), web, "X"),
		strings.ReplaceAll(second.file(t, "web"), second.name("web"), "X"); a != b {
		t.Errorf("the slice renders differently:\n%s\n%s", a, b)
	}

	// Rendering the same inputs again writes nothing.
	path := filepath.Join(dir, "v1-Endpoints-ns1-fixed.yaml")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	r := first.resources["items"]
	if _, err := srv.Update(p.UpdateRequest{Urn: r.urn, ID: r.id, State: r.state, OldInputs: r.inputs, Inputs: r.inputs}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("re-rendering unchanged inputs touched %s (%v)", path, err)
	}
	if got := toolchain.ReadFile(t, path); got != first.files["v1-Endpoints-ns1-fixed.yaml"] {
		t.Errorf("re-rendering changed %s:\n%s", path, got)
	}
}

type rendered struct {
	urn    resource.URN
	id     string
	inputs property.Map
	state  property.Map
}

// rendering is what renderAll wrote: the resources, and the files by name.
type rendering struct {
	resources map[string]rendered
	files     map[string]string
}

// name is the metadata.name the resource (or "items[i]" of the list) got.
func (r rendering) name(which string) string {
	if rest, ok := strings.CutPrefix(which, "items["); ok {
		return r.resources["items"].state.Get("items").AsArray().Get(int(rest[0] - '0')).AsMap().
			Get("metadata").AsMap().Get("name").AsString()
	}
	return r.resources[which].state.Get("metadata").AsMap().Get("name").AsString()
}

// file is the manifest of the slice which.
func (r rendering) file(t *testing.T, which string) string {
	t.Helper()
	meta := r.resources[which].state.Get("metadata").AsMap()
	return r.files["discovery.k8s.io_v1-EndpointSlice-"+meta.Get("namespace").AsString()+"-"+r.name(which)+".yaml"]
}

// renderAll creates renderProgram(ns) with srv, which renders to dir, and reads the
// directory.
func renderAll(t *testing.T, srv integration.Server, dir, ns string) rendering {
	t.Helper()
	out := rendering{resources: map[string]rendered{}, files: map[string]string{}}
	for name, inputs := range renderProgram(ns) {
		u := urn(renderURN(name), name)
		checked := check(t, srv, u, property.Map{}, inputs)
		created, err := srv.Create(p.CreateRequest{Urn: u, Properties: checked})
		if err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		out.resources[name] = rendered{urn: u, id: created.ID, inputs: checked, state: created.Properties}
	}
	for _, f := range toolchain.FileNames(t, dir) {
		out.files[f] = toolchain.ReadFile(t, filepath.Join(dir, f))
	}
	return out
}

// TestRenderLifecycle: an update rewrites the manifest, an item the list loses loses
// its manifest, refresh reads a hand edit back as drift and a missing manifest as a
// deleted object, Diff has `up` write a missing, edited or broken manifest again
// (and leaves one edited in form only), and a delete removes the manifests.
func TestRenderLifecycle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := renderProvider(t, dir, map[string]property.Value{"namespace": property.New("apps")})
	out := renderAll(t, srv, dir, "")
	l := &renderLife{t: t, srv: srv, dir: dir, out: out, web: out.resources["web"]}
	if got := getString(t, l.web.inputs, "metadata.namespace"); got != "apps" {
		t.Fatalf("namespace = %q, want the namespace setting's apps", got)
	}
	l.webFile = filepath.Join(dir, "discovery.k8s.io_v1-EndpointSlice-apps-"+out.name("web")+".yaml")

	l.update()
	l.handEdits()
	l.formAndBrokenEdits()
	l.list()
	l.importAndGet()
	l.goneAndDeleted()
}

// renderLife is TestRenderLifecycle's stack: the provider, its directory, what
// renderAll wrote, and the slice web as its steps leave it.
type renderLife struct {
	t       *testing.T
	srv     integration.Server
	dir     string
	out     rendering
	web     rendered
	webFile string

	genState, lstInputs property.Map // the gen slice's and the list's, after their updates
}

// diffWeb is the Diff of the slice web's recorded state and inputs against inputs.
func (l *renderLife) diffWeb(inputs property.Map) (p.DiffResponse, error) {
	return l.srv.Diff(p.DiffRequest{Urn: l.web.urn, ID: l.web.id, State: l.web.state, OldInputs: l.web.inputs, Inputs: inputs})
}

// readWeb refreshes the slice web.
func (l *renderLife) readWeb() (p.ReadResponse, error) {
	return l.srv.Read(p.ReadRequest{Urn: l.web.urn, ID: l.web.id, Properties: l.web.state, Inputs: l.web.inputs})
}

// update: an update in place rewrites the manifest, and a generated name stays
// across updates.
func (l *renderLife) update() {
	t, srv, web := l.t, l.srv, l.web
	news := check(t, srv, web.urn, web.inputs, sliceInputs("", "IPv4", "10.0.0.9", 80))
	d, err := l.diffWeb(news)
	if err != nil || !d.HasChanges || d.DeleteBeforeReplace {
		t.Fatalf("Diff = %+v, %v; want an update in place", d, err)
	}
	updated, err := srv.Update(p.UpdateRequest{Urn: web.urn, ID: web.id, State: web.state, OldInputs: web.inputs, Inputs: news})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(toolchain.ReadFile(t, l.webFile), "10.0.0.9") {
		t.Errorf("the update did not rewrite %s:\n%s", l.webFile, toolchain.ReadFile(t, l.webFile))
	}
	l.web.inputs, l.web.state = news, updated.Properties

	gen := l.out.resources["gen"]
	genNews := check(t, srv, gen.urn, gen.inputs, renderProgram("apps")["gen"].Set("ports",
		property.New([]property.Value{property.New(obj("name", "http", "port", 99))})))
	genUpdated, err := srv.Update(p.UpdateRequest{Urn: gen.urn, ID: gen.id, State: gen.state, OldInputs: gen.inputs, Inputs: genNews})
	if err != nil {
		t.Fatal(err)
	}
	if got := getString(t, genUpdated.Properties, "metadata.name"); got != l.out.name("gen") {
		t.Errorf("generated name after update = %q, want %q", got, l.out.name("gen"))
	}
	l.genState = genUpdated.Properties
}

// handEdits: refresh reads a hand edit back as drift; without a refresh, Diff finds
// the edited file and has `up` write it again.
func (l *renderLife) handEdits() {
	t, srv, web := l.t, l.srv, l.web
	edited := strings.Replace(toolchain.ReadFile(t, l.webFile), "10.0.0.9", "10.0.0.10", 1)
	if err := os.WriteFile(l.webFile, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	read, err := l.readWeb()
	if err != nil {
		t.Fatal(err)
	}
	if got := getString(t, read.Inputs, "endpoints[0].addresses[0]"); got != "10.0.0.10" {
		t.Errorf("refresh after a hand edit: inputs' address = %q, want the edited 10.0.0.10", got)
	}
	d, err := srv.Diff(p.DiffRequest{Urn: web.urn, ID: web.id, State: read.Properties, OldInputs: read.Inputs, Inputs: web.inputs})
	if err != nil || !d.HasChanges {
		t.Errorf("Diff of the program against the refreshed hand edit = %+v, %v; want a change", d, err)
	}
	d, err = l.diffWeb(web.inputs)
	if err != nil || !d.HasChanges {
		t.Errorf("Diff of unchanged inputs with an edited manifest = %+v, %v; want a change", d, err)
	}
	if _, err := srv.Update(p.UpdateRequest{Urn: web.urn, ID: web.id, State: web.state, OldInputs: web.inputs, Inputs: web.inputs}); err != nil {
		t.Fatal(err)
	}
	d, err = l.diffWeb(web.inputs)
	if err != nil || d.HasChanges {
		t.Errorf("Diff once the manifest is written again = %+v, %v; want none", d, err)
	}
}

// formAndBrokenEdits: an edit of form alone (a comment, the keys in another order) is
// no change to Diff nor to refresh, and the file is kept as edited; a file broken by a
// hand edit fails refresh, naming it, and Diff has `up` write it again, which the
// update does.
func (l *renderLife) formAndBrokenEdits() {
	t, srv, web := l.t, l.srv, l.web
	reformed := "# reviewed\n" + reorderKeys(t, toolchain.ReadFile(t, l.webFile))
	if err := os.WriteFile(l.webFile, []byte(reformed), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := l.diffWeb(web.inputs)
	if err != nil || d.HasChanges {
		t.Errorf("Diff of unchanged inputs with a manifest edited in form only = %+v, %v; want none", d, err)
	}
	read, err := l.readWeb()
	if err != nil || !read.Inputs.Equals(web.inputs) {
		t.Errorf("refresh of a manifest edited in form only = %v, %v; want the inputs %v", read.Inputs, err, web.inputs)
	}

	if err := os.WriteFile(l.webFile, []byte("endpoints: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := l.readWeb(); err == nil || !strings.Contains(err.Error(), l.webFile) || !strings.Contains(err.Error(), "not valid YAML") {
		t.Errorf("refresh of a broken manifest: %v; want an error naming %s as not valid YAML", err, l.webFile)
	}
	d, err = l.diffWeb(web.inputs)
	if err != nil || !d.HasChanges {
		t.Errorf("Diff of unchanged inputs with a broken manifest = %+v, %v; want a change", d, err)
	}
	if _, err := srv.Update(p.UpdateRequest{Urn: web.urn, ID: web.id, State: web.state, OldInputs: web.inputs, Inputs: web.inputs}); err != nil {
		t.Fatalf("Update over a broken manifest: %v", err)
	}
	if got := toolchain.ReadFile(t, l.webFile); !strings.Contains(got, "10.0.0.9") || strings.Contains(got, "# reviewed") {
		t.Errorf("the update did not write the broken %s again:\n%s", l.webFile, got)
	}
}

// list: a missing item file is refreshed away, Diff has it written again; an item
// dropped from the program loses its file.
func (l *renderLife) list() {
	t, srv := l.t, l.srv
	lst := l.out.resources["items"]
	fixedFile := filepath.Join(l.dir, "v1-Endpoints-apps-fixed.yaml")
	if err := os.Remove(fixedFile); err != nil {
		t.Fatal(err)
	}
	d, err := srv.Diff(p.DiffRequest{Urn: lst.urn, ID: lst.id, State: lst.state, OldInputs: lst.inputs, Inputs: lst.inputs})
	if err != nil || !d.HasChanges {
		t.Errorf("Diff of unchanged inputs with a missing manifest = %+v, %v; want a change", d, err)
	}
	read, err := srv.Read(p.ReadRequest{Urn: lst.urn, ID: lst.id, Properties: lst.state, Inputs: lst.inputs})
	if err != nil {
		t.Fatal(err)
	}
	if n := read.Properties.Get("items").AsArray().Len(); n != 1 || read.ID != lst.id {
		t.Errorf("refresh with one manifest missing: %d items, ID %q; want 1, %q", n, read.ID, lst.id)
	}
	keep := lst.inputs.Get("items").AsArray().Get(1).AsMap()
	l.lstInputs = check(t, srv, lst.urn, lst.inputs, obj("items", list(keep)))
	if _, err := srv.Update(p.UpdateRequest{Urn: lst.urn, ID: lst.id, State: lst.state, OldInputs: lst.inputs, Inputs: l.lstInputs}); err != nil {
		t.Fatal(err)
	}
	itemFile := filepath.Join(l.dir, "v1-Endpoints-apps-"+l.out.name("items[1]")+".yaml")
	if _, err := os.Stat(itemFile); err != nil {
		t.Errorf("the item kept lost its manifest: %v", err)
	}
}

// importAndGet: import and get read the manifests, a slice by namespace/name, a list
// by namespace and label selector; a missing manifest is an error naming the file.
func (l *renderLife) importAndGet() {
	t, srv, web := l.t, l.srv, l.web
	imported, err := srv.Read(p.ReadRequest{Urn: web.urn, ID: web.id})
	if err != nil || getString(t, imported.Inputs, "endpoints[0].addresses[0]") != "10.0.0.9" {
		t.Errorf("import of %s = %+v, %v; want the manifest's slice", web.id, imported.Inputs, err)
	}
	if _, err := srv.Read(p.ReadRequest{Urn: web.urn, ID: "apps/none"}); err == nil ||
		!strings.Contains(err.Error(), "discovery.k8s.io_v1-EndpointSlice-apps-none.yaml") {
		t.Errorf("import of a slice with no manifest: %v; want an error naming the file", err)
	}
	genItemName := l.out.name("items[1]")
	lst := l.out.resources["items"]
	importedList, err := srv.Read(p.ReadRequest{Urn: lst.urn, ID: "apps?labelSelector=!app"})
	if err != nil || importedList.Properties.Get("items").AsArray().Len() != 1 ||
		getString(t, importedList.Inputs, "items[0].metadata.name") != genItemName {
		t.Errorf("import of apps?labelSelector=!app = %+v, %v; want the item %s", importedList.Inputs, err, genItemName)
	}
}

// goneAndDeleted: a slice whose manifest is gone is gone, and Delete removes the
// manifests.
func (l *renderLife) goneAndDeleted() {
	t, srv := l.t, l.srv
	if err := os.Remove(l.webFile); err != nil {
		t.Fatal(err)
	}
	read, err := l.readWeb()
	if err != nil || read.ID != "" {
		t.Errorf("refresh of a slice whose manifest is gone = %q, %v; want an empty ID", read.ID, err)
	}
	gen, lst := l.out.resources["gen"], l.out.resources["items"]
	if err := srv.Delete(p.DeleteRequest{Urn: gen.urn, ID: gen.id, Properties: l.genState}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Delete(p.DeleteRequest{Urn: lst.urn, ID: lst.id, Properties: l.lstInputs}); err != nil {
		t.Fatal(err)
	}
	if files := toolchain.FileNames(t, l.dir); len(files) != 0 {
		t.Errorf("files left after the deletes: %v", files)
	}
}

// reorderKeys moves the first line of doc, a top-level key with a scalar value
// (addressType or apiVersion, as manifests are written), to the end.
func reorderKeys(t *testing.T, doc string) string {
	t.Helper()
	first, rest, ok := strings.Cut(doc, "\n")
	if key, value, _ := strings.Cut(first, ": "); !ok || key != strings.TrimSpace(key) || value == "" {
		t.Fatalf("the manifest does not begin with a top-level scalar:\n%s", doc)
	}
	return rest + first + "\n"
}

// TestRenderSecretWarning: a secret input written to a manifest draws a warning naming
// the field and the file.
func TestRenderSecretWarning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := renderProvider(t, dir, nil)
	u := urn(spec.EndpointSliceToken, "secret-web")
	inputs := sliceInputs("default", "IPv4", "10.0.0.1", 80)
	inputs = inputs.Set("metadata", property.New(obj("name", "secret-web",
		"annotations", obj("token", property.New("s3cr3t").WithSecret(true)))))
	checked := check(t, srv, u, property.Map{}, inputs)
	if _, err := srv.Create(p.CreateRequest{Urn: u, Properties: checked}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "discovery.k8s.io_v1-EndpointSlice-default-secret-web.yaml")
	if lines := logs.Lines("metadata.annotations", file, "plain text"); len(lines) == 0 {
		t.Errorf("no warning names metadata.annotations and %s; the log:\n%s", file,
			strings.Join(logs.Lines("secret"), "\n"))
	}
}

// TestRenderMatchesCluster: the manifests, created on the control plane as they are,
// make the same objects as the provider makes there from the same program (but for
// what only the server sets and the names the server or the provider generated).
func TestRenderMatchesCluster(t *testing.T) {
	t.Parallel()
	clusterNS, renderNS := newNamespace(t), newNamespace(t)
	dir := t.TempDir()
	onCluster := newProvider(t, nil, map[string]property.Value{"namespace": property.New(clusterNS)})
	files := renderAll(t, renderProvider(t, dir, map[string]property.Value{"namespace": property.New(renderNS)}), dir, "")
	for name, inputs := range renderProgram("") {
		u := urn(renderURN(name), name)
		checked := check(t, onCluster, u, property.Map{}, inputs)
		if _, err := onCluster.Create(p.CreateRequest{Urn: u, Properties: checked}); err != nil {
			t.Fatalf("create %s on the cluster: %v", name, err)
		}
	}
	dyn := dynamic.NewForConfigOrDie(controlplane.Shared(t).RESTConfig())
	resources := map[string]schema.GroupVersionResource{
		"EndpointSlice": {Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"},
		"Endpoints":     {Version: "v1", Resource: "endpoints"},
	}
	var fromFiles, fromProvider []map[string]any
	for f, data := range files.files {
		var obj unstructured.Unstructured
		if err := yaml.Unmarshal([]byte(data), &obj.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		live, err := dyn.Resource(resources[obj.GetKind()]).Namespace(renderNS).Create(t.Context(), &obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s on the cluster: %v", f, err)
		}
		fromFiles = append(fromFiles, withoutServerFields(t, live))
	}
	for kind, gvr := range resources {
		l, err := dyn.Resource(gvr).Namespace(clusterNS).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range l.Items {
			if l.Items[i].GetKind() == "" {
				l.Items[i].SetKind(kind)
			}
			fromProvider = append(fromProvider, withoutServerFields(t, &l.Items[i]))
		}
	}
	sortObjects(fromFiles)
	sortObjects(fromProvider)
	if !reflect.DeepEqual(fromFiles, fromProvider) {
		t.Errorf("objects from the manifests:\n%v\nobjects the provider created:\n%v", fromFiles, fromProvider)
	}
}

// withoutServerFields is a live object without what only the server sets, its
// namespace, the names generated (by the server, or, in render mode, by the provider)
// and the create-ID label and URN annotation of the cluster path's bookkeeping.
func withoutServerFields(t *testing.T, obj *unstructured.Unstructured) map[string]any {
	t.Helper()
	m := controlplane.ObjectOutputs(t, obj)
	meta, _ := m["metadata"].(map[string]any)
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "namespace"} {
		delete(meta, f)
	}
	if _, generated := meta["generateName"]; generated {
		delete(meta, "name")
	}
	// The label by which the cluster path finds a slice whose create went unanswered.
	if labels, ok := meta["labels"].(map[string]any); ok {
		delete(labels, "endpoints-provider.github.io/create-id")
	}
	// The annotation by which a create finds its own object after an interrupted run.
	if annotations, ok := meta["annotations"].(map[string]any); ok {
		delete(annotations, "endpoints-provider.github.io/urn")
		if len(annotations) == 0 {
			delete(meta, "annotations")
		}
	}
	if name, _ := meta["name"].(string); strings.HasPrefix(name, "web-") {
		meta["name"] = "web-<autonamed>"
	}
	m["kind"] = obj.GetKind()
	return m
}

func sortObjects(objs []map[string]any) {
	slices.SortFunc(objs, func(a, b map[string]any) int {
		ja, _ := yaml.Marshal(a)
		jb, _ := yaml.Marshal(b)
		return strings.Compare(string(ja), string(jb))
	})
}
