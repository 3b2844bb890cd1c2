package kube

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

func TestParseListQuery(t *testing.T) {
	t.Parallel()
	str := property.New[string]
	tests := []struct {
		name    string
		kind    kind
		query   map[string]property.Value
		want    listQuery
		wantErr string
	}{
		{name: "empty: every namespace", kind: endpointSliceKind, want: listQuery{kind: endpointSliceKind}},
		{name: "every input", kind: endpointsKind, query: map[string]property.Value{
			"namespace": str("apps"), "labelSelector": str("app=web"), "fieldSelector": str("metadata.name!=x"),
			"includeManaged": property.New(true),
		}, want: listQuery{kind: endpointsKind, namespace: "apps", labelSelector: "app=web",
			fieldSelector: "metadata.name!=x", includeManaged: true}},
		{name: "secret and null values", kind: endpointSliceKind, query: map[string]property.Value{
			"namespace": str("apps").WithSecret(true), "labelSelector": property.New(property.Null),
		}, want: listQuery{kind: endpointSliceKind, namespace: "apps"}},
		{name: "unknown input", kind: endpointSliceKind, query: map[string]property.Value{"selector": str("a")},
			wantErr: `unknown input "selector"; the inputs are fieldSelector, includeManaged, labelSelector, namespace`},
		{name: "wrong type", kind: endpointSliceKind, query: map[string]property.Value{"includeManaged": str("yes")},
			wantErr: `input includeManaged must be a boolean, not the string "yes"`},
		{name: "namespace not a name", kind: endpointSliceKind, query: map[string]property.Value{"namespace": str("Apps")},
			wantErr: `input namespace "Apps" is not a namespace name`},
		{name: "bad label selector", kind: endpointSliceKind, query: map[string]property.Value{"labelSelector": str("a in b")},
			wantErr: `input labelSelector "a in b" is not a label selector`},
		{name: "field not selectable", kind: endpointsKind, query: map[string]property.Value{"fieldSelector": str("spec.x=1")},
			wantErr: `input fieldSelector "spec.x=1": objects cannot be selected by spec.x; the fields are metadata.name and metadata.namespace`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseListQuery(tt.kind, decode(property.NewMap(tt.query)).fields)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(listQuery{}, kind{}), cmpKind); diff != "" {
				t.Errorf("query (-want +got):\n%s", diff)
			}
		})
	}
}

// cmpKind compares kinds by name.
var cmpKind = cmp.Comparer(func(a, b kind) bool { return a.name == b.name })

// The label selector sent leaves out the controllers' objects with notin, so that the
// server's pages stay exact, and keeps the query's own requirements.
func TestListSelector(t *testing.T) {
	t.Parallel()
	sliceOf := func(manager string) labels.Set { return labels.Set{ManagedByLabel: manager, "app": "web"} }
	tests := []struct {
		name string
		q    listQuery
		objs map[string]labels.Set
		want []string
	}{
		{
			name: "slices", q: listQuery{kind: endpointSliceKind, labelSelector: "app=web"},
			objs: map[string]labels.Set{
				"ours": sliceOf(ManagedBy), "controller": sliceOf(endpointSliceController),
				"mirror": sliceOf(mirroringController), "unlabelled": {"app": "web"}, "other app": {"app": "api"},
			},
			want: []string{"ours", "unlabelled"},
		},
		{
			name: "slices, managed included", q: listQuery{kind: endpointSliceKind, includeManaged: true},
			objs: map[string]labels.Set{"ours": sliceOf(ManagedBy), "controller": sliceOf(endpointSliceController)},
			want: []string{"controller", "ours"},
		},
		{
			name: "endpoints", q: listQuery{kind: endpointsKind},
			objs: map[string]labels.Set{
				"controller": {endpointsManagedByLabel: endpointsController}, "mine": {"app": "web"}, "bare": nil,
			},
			want: []string{"bare", "mine"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sel, err := labels.Parse(tt.q.selector())
			if err != nil {
				t.Fatalf("selector %q: %v", tt.q.selector(), err)
			}
			var got []string
			for name, set := range tt.objs {
				if sel.Matches(set) {
					got = append(got, name)
				}
			}
			if diff := cmp.Diff(tt.want, got, cmpSorted); diff != "" {
				t.Errorf("selected (-want +got):\n%s", diff)
			}
		})
	}
}

var cmpSorted = cmpopts.SortSlices(func(a, b string) bool { return a < b })

func TestListResult(t *testing.T) {
	t.Parallel()
	obj := &unstructured.Unstructured{}
	obj.SetNamespace("apps")
	obj.SetName("web")
	tests := []struct {
		q    listQuery
		want ListResult
	}{
		{listQuery{kind: endpointSliceKind, namespace: "apps"}, ListResult{ID: "apps/web", Name: "web"}},
		{listQuery{kind: endpointSliceKind}, ListResult{ID: "apps/web", Name: "apps-web"}},
		{listQuery{kind: endpointsKind, namespace: "apps"}, ListResult{ID: "apps?fieldSelector=metadata.name%3Dweb", Name: "web"}},
	}
	for _, tt := range tests {
		if got := tt.q.result(obj); got != tt.want {
			t.Errorf("%s in %q: %+v, want %+v", tt.q.kind.name, tt.q.namespace, got, tt.want)
		}
		// An EndpointsList's result imports as it is: its ID selects the object.
		if tt.q.kind.name == endpointsKind.name {
			ns, opts, err := parseImportID(tt.q.result(obj).ID, "default")
			if err != nil || ns != "apps" || opts.FieldSelector != "metadata.name=web" {
				t.Errorf("the listed ID imports as %s %q (err %v)", ns, opts.FieldSelector, err)
			}
		}
	}
}

// A listing of every namespace whose field selector names one namespace sends its
// requests to that namespace, where the API server's continue keys are read as they
// were written.
func TestListRequestNamespace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q    listQuery
		want string
	}{
		{listQuery{namespace: "apps"}, "apps"},
		{listQuery{namespace: "apps", fieldSelector: "metadata.namespace=other"}, "apps"},
		{listQuery{}, ""},
		{listQuery{fieldSelector: "metadata.namespace=apps"}, "apps"},
		{listQuery{fieldSelector: "metadata.name=web,metadata.namespace=apps"}, "apps"},
		{listQuery{fieldSelector: "metadata.namespace!=apps"}, ""},
		{listQuery{fieldSelector: "metadata.name=web"}, ""},
	}
	for _, tt := range tests {
		if got := tt.q.requestNamespace(); got != tt.want {
			t.Errorf("namespace %q, fieldSelector %q: requests to %q, want %q", tt.q.namespace, tt.q.fieldSelector, got, tt.want)
		}
	}
}

// A continuation token carries where the listing stands and for which query; the
// limit of the first call bounds every page after it.
func TestListContinuation(t *testing.T) {
	t.Parallel()
	q := listQuery{kind: endpointSliceKind, namespace: "apps"}
	at := listPosition{Server: "server-token", Sent: 3, Limit: 5}
	got, err := q.resume(q.token(at))
	if err != nil {
		t.Fatal(err)
	}
	at.Query = q.fingerprint()
	if got != at {
		t.Errorf("resumed %+v, want %+v", got, at)
	}
	if n := pageSize(10, got); n != 2 {
		t.Errorf("page size with 2 left of the limit = %d, want 2", n)
	}
	if n := pageSize(0, listPosition{}); n != DefaultListPageSize {
		t.Errorf("default page size = %d, want %d", n, DefaultListPageSize)
	}
	other := q
	other.labelSelector = "app=web"
	if _, err := other.resume(q.token(at)); err == nil || !strings.Contains(err.Error(), "another query") {
		t.Errorf("a token used with another query: err = %v", err)
	}
	if _, err := q.resume("not-a-token"); err == nil || !strings.Contains(err.Error(), "start the listing again") {
		t.Errorf("a token this provider did not give: err = %v", err)
	}
}

// In render mode List reads the render directory's manifests, with the same filters
// and pages.
func TestListRendered(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := RenderTarget{Directory: dir}
	for _, o := range []struct{ ns, name, manager string }{
		{"a", "one", ManagedBy}, {"a", "two", ManagedBy}, {"b", "three", ""}, {"b", "ctl", endpointSliceController},
	} {
		obj := endpointSliceKind.object(validate.DecodeMap(property.NewMap(map[string]property.Value{
			"metadata": property.New(map[string]property.Value{
				"namespace": property.New(o.ns), "name": property.New(o.name),
			}),
			"addressType": property.New("IPv4"),
		})))
		if o.manager != "" {
			obj.SetLabels(map[string]string{ManagedByLabel: o.manager})
		}
		if err := target.writeManifest(endpointSliceKind, obj, true, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a manifest"), 0o600); err != nil {
		t.Fatal(err)
	}
	k := New(Config{RenderDirectory: dir})
	var ids []string
	token := ""
	for pages := 0; ; pages++ {
		page, err := k.List(t.Context(), ListRequest{Token: spec.EndpointSliceToken, PageSize: 1, ContinuationToken: token})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Results) > 1 {
			t.Fatalf("a page of size 1 has %d results", len(page.Results))
		}
		for _, r := range page.Results {
			ids = append(ids, r.ID)
		}
		if token = page.ContinuationToken; token == "" {
			break
		}
		if pages > 10 {
			t.Fatal("the listing does not end")
		}
	}
	if diff := cmp.Diff([]string{"a/one", "a/two", "b/three"}, ids); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	page, err := k.List(t.Context(), ListRequest{Token: spec.EndpointSliceToken, Query: property.NewMap(map[string]property.Value{
		"namespace": property.New("b"), "includeManaged": property.New(true),
	})})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]ListResult{{ID: "b/ctl", Name: "ctl"}, {ID: "b/three", Name: "three"}}, page.Results); diff != "" {
		t.Errorf("namespace b with managed slices (-want +got):\n%s", diff)
	}
}

func TestListComputedQuery(t *testing.T) {
	t.Parallel()
	k := New(Config{})
	page, err := k.List(t.Context(), ListRequest{Token: spec.EndpointsListToken, Query: property.NewMap(map[string]property.Value{
		"namespace": property.New(property.Computed),
	})})
	if err != nil || !page.Computed || len(page.Results) > 0 {
		t.Errorf("a query with an unknown value: %+v, %v; want Computed alone", page, err)
	}
	if _, err := k.List(t.Context(), ListRequest{Token: "endpoints:core/v1:Endpoints"}); err == nil {
		t.Error("a List of a type that cannot be listed succeeded")
	}
}

// The API server's own default/kubernetes carries no controller's label (its slice
// only kubernetes.io/service-name): List leaves it out by its name, unless asked.
func TestListLeavesOutAPIServersOwn(t *testing.T) {
	t.Parallel()
	obj := func(ns, name string) *unstructured.Unstructured {
		o := &unstructured.Unstructured{}
		o.SetNamespace(ns)
		o.SetName(name)
		return o
	}
	q := listQuery{kind: endpointsKind}
	if !q.managed(obj("default", "kubernetes")) || q.managed(obj("apps", "kubernetes")) || q.managed(obj("default", "web")) {
		t.Error("only default/kubernetes is the API server's own")
	}
	q.includeManaged = true
	if q.managed(obj("default", "kubernetes")) {
		t.Error("includeManaged lists default/kubernetes too")
	}
}

// A cluster that does not answer: the error names the listing and the server.
func TestListUnreachable(t *testing.T) {
	t.Parallel()
	kubeconfig := "apiVersion: v1\nkind: Config\n" +
		"clusters: [{name: c, cluster: {server: \"https://127.0.0.1:1\", insecure-skip-tls-verify: true}}]\n" +
		"users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n"
	k := New(Config{Kubeconfig: kubeconfig})
	_, err := k.List(t.Context(), ListRequest{Token: spec.EndpointSliceToken})
	if err == nil || !strings.Contains(err.Error(), "list endpointslices.discovery.k8s.io in all namespaces on the Kubernetes API server https://127.0.0.1:1") {
		t.Errorf("err = %v", err)
	}
}

// A secret in a List query stays secret: a namespace or field selector that every
// result's ID would spell out is refused, naming the input and not its value; a secret
// label selector, which no result spells out, lists.
func TestListSecretQuery(t *testing.T) {
	t.Parallel()
	k := New(Config{RenderDirectory: t.TempDir()})
	for _, key := range []string{"namespace", "fieldSelector"} {
		value := map[string]string{"namespace": "hidden-ns", "fieldSelector": "metadata.name=hidden"}[key]
		_, err := k.List(t.Context(), ListRequest{Token: spec.EndpointSliceToken, Query: property.NewMap(
			map[string]property.Value{key: property.New(value).WithSecret(true)})})
		if err == nil || !strings.Contains(err.Error(), key) || strings.Contains(err.Error(), value) {
			t.Errorf("a List by a secret %s: %v; want an error naming %s and not its value", key, err, key)
		}
	}
	if _, err := k.List(t.Context(), ListRequest{Token: spec.EndpointSliceToken, Query: property.NewMap(
		map[string]property.Value{"labelSelector": property.New("app=web").WithSecret(true)})}); err != nil {
		t.Errorf("a List by a secret label selector: %v", err)
	}
}
