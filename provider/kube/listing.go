package kube

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// The provider's List (`pulumi do <token> list`): the objects of a kind that a query
// selects, a page at a time, each as the ID `pulumi import` takes. One List call is one
// page of the API server's list (its limit and continue), so a page costs one request;
// the objects Kubernetes' own controllers maintain are left out by the label selector
// sent, so pages stay exact, unless the query asks for them.

// ListRequest is a List call: the resource's type token, its query (the schema's
// listInputs; values may be unknown or secret), the most results to return in all (<1:
// no limit), the most in this page (<1: DefaultListPageSize), and the continuation
// token of the page before ("" for the first).
type ListRequest struct {
	Token             string
	Query             property.Map
	Limit             int64
	PageSize          int64
	ContinuationToken string
}

// ListPage is a List call's answer: Computed when the query holds unknown values (and
// then nothing else), else the results and, when there are more, the token that
// continues the listing.
type ListPage struct {
	Computed          bool
	Results           []ListResult
	ContinuationToken string
}

// ListResult is one object listed: the ID `pulumi import` takes, and a logical name for
// it.
type ListResult struct {
	ID   string
	Name string
}

// DefaultListPageSize is the size of a page when the request gives none, as kubectl
// pages its lists (--chunk-size).
const DefaultListPageSize = 500

// maxListPageSize bounds the page asked of the API server, whatever the request asks.
const maxListPageSize = 5000

// List answers a List call for the resource of req.Token, from the cluster, or from the
// manifests of the render directory in render mode.
func (k *Kubernetes) List(ctx context.Context, req ListRequest) (ListPage, error) {
	resource, ok := k.resources()[req.Token]
	if !ok {
		return ListPage{}, fmt.Errorf("list: %q is not a resource of this provider that can be listed (%s)",
			req.Token, strings.Join(slices.Sorted(maps.Keys(k.resources())), ", "))
	}
	r := resource.base()
	query := decode(req.Query)
	if !query.known() {
		return ListPage{Computed: true}, nil
	}
	if spelled := spelledOut(req.Query); len(spelled) > 0 {
		return ListPage{}, fmt.Errorf("list %s: the query's %s is secret, but the results' IDs and names spell "+
			"it out, and IDs are never secret: give it in plain text, or select by labelSelector, which no result "+
			"spells out", req.Token, strings.Join(spelled, " and "))
	}
	q, err := parseListQuery(r.kind, query.fields)
	if err != nil {
		return ListPage{}, err
	}
	at, err := q.resume(req.ContinuationToken)
	if err != nil {
		return ListPage{}, err
	}
	if at.Limit == 0 && req.Limit > 0 {
		at.Limit = at.Sent + req.Limit
	}
	want := pageSize(req.PageSize, at)
	if want == 0 {
		return ListPage{}, nil
	}
	objs, next, err := listPage(ctx, r.open(""), q, want, at.Server)
	if err != nil {
		return ListPage{}, err
	}
	page := ListPage{Results: make([]ListResult, 0, len(objs))}
	for _, obj := range objs {
		page.Results = append(page.Results, q.result(obj))
	}
	at.Sent += int64(len(objs))
	if next != "" && (at.Limit == 0 || at.Sent < at.Limit) {
		at.Server = next
		page.ContinuationToken = q.token(at)
	}
	return page, nil
}

// spelledOut names the inputs of a List query that are secret and that its results
// would spell out: the namespace, which every result's ID names, and the field
// selector, which selects by name and namespace.
func spelledOut(query property.Map) []string {
	var out []string
	for _, key := range []string{"namespace", "fieldSelector"} {
		if v := query.Get(key); v.Secret() && !v.IsNull() {
			out = append(out, key)
		}
	}
	return out
}

// pageSize is how many objects to ask for: the request's page size (or the default),
// no more than maxListPageSize, and no more than what is left of the listing's limit.
func pageSize(size int64, at listPosition) int64 {
	if size < 1 {
		size = DefaultListPageSize
	}
	size = min(size, maxListPageSize)
	if at.Limit > 0 {
		size = min(size, max(at.Limit-at.Sent, 0))
	}
	return size
}

// listQuery is a List call's query, checked: the schema's listInputs.
type listQuery struct {
	kind kind
	// namespace is "" for every namespace.
	namespace, labelSelector, fieldSelector string
	includeManaged                          bool
}

// parseListQuery reads and checks a query against the resource's listInputs: an
// unknown input, a value of the wrong type, a namespace that is no DNS label or a
// selector that does not parse is an error naming the input.
func parseListQuery(k kind, m map[string]any) (listQuery, error) {
	q := listQuery{kind: k}
	inputs := spec.MustLoad().Resources[k.token].ListInputs
	if inputs == nil {
		return q, fmt.Errorf("internal error: schema.json gives %s no listInputs", k.token)
	}
	for key, v := range m {
		prop, known := inputs.Properties[key]
		if !known {
			names := make([]string, 0, len(inputs.Properties))
			for name := range inputs.Properties {
				names = append(names, name)
			}
			sort.Strings(names)
			return q, fmt.Errorf("list %s: unknown input %q; the inputs are %s", k.token, key, strings.Join(names, ", "))
		}
		if v == nil {
			continue
		}
		s, isString := v.(string)
		b, isBool := v.(bool)
		switch {
		case prop.Type == "string" && isString:
		case prop.Type == "boolean" && isBool:
		default:
			return q, fmt.Errorf("list %s: input %s must be a %s, not %s", k.token, key, prop.Type, describeValue(v))
		}
		switch key {
		case "namespace":
			q.namespace = s
		case "labelSelector":
			q.labelSelector = s
		case "fieldSelector":
			q.fieldSelector = s
		case "includeManaged":
			q.includeManaged = b
		default:
			return q, fmt.Errorf("internal error: list input %q of schema.json is not read", key)
		}
	}
	if q.namespace != "" {
		if errs := validation.IsDNS1123Label(q.namespace); len(errs) > 0 {
			return q, fmt.Errorf("list %s: input namespace %q is not a namespace name: %s", k.token, q.namespace,
				strings.Join(errs, "; "))
		}
	}
	if _, err := labels.Parse(q.labelSelector); err != nil {
		return q, fmt.Errorf("list %s: input labelSelector %q is not a label selector: %w", k.token, q.labelSelector, err)
	}
	if err := checkFieldSelector(q.fieldSelector); err != nil {
		return q, fmt.Errorf("list %s: input fieldSelector %q: %w", k.token, q.fieldSelector, err)
	}
	return q, nil
}

// describeValue names a decoded value's type for messages.
func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %t", x)
	case int64:
		return "the number " + strconv.FormatInt(x, 10)
	case float64:
		return "the number " + strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	default:
		return "a value of another type"
	}
}

// selectableFields are the fields a field selector may name: what the API server
// selects EndpointSlices and Endpoints by.
var selectableFields = []string{"metadata.name", "metadata.namespace"}

// checkFieldSelector checks that s parses and names only selectableFields.
func checkFieldSelector(s string) error {
	sel, err := fields.ParseSelector(s)
	if err != nil {
		return fmt.Errorf("not a field selector: %w", err)
	}
	for _, r := range sel.Requirements() {
		if !slices.Contains(selectableFields, r.Field) {
			return fmt.Errorf("objects cannot be selected by %s; the fields are %s", r.Field,
				strings.Join(selectableFields, " and "))
		}
	}
	return nil
}

// Endpoints objects the endpoints controller writes carry this label with the value
// endpointsController (Kubernetes 1.33 and later).
const (
	endpointsManagedByLabel = "endpoints.kubernetes.io/managed-by"
	endpointsController     = "endpoint-controller"
)

// selector is the label selector sent: the query's, and, unless the query includes
// them, the requirement that leaves out what Kubernetes' controllers write.
func (q listQuery) selector() string {
	if q.includeManaged {
		return q.labelSelector
	}
	exclude := fmt.Sprintf("%s notin (%s,%s)", ManagedByLabel, endpointSliceController, mirroringController)
	if q.kind.name == endpointsKind.name {
		exclude = fmt.Sprintf("%s notin (%s)", endpointsManagedByLabel, endpointsController)
	}
	if q.labelSelector == "" {
		return exclude
	}
	return q.labelSelector + "," + exclude
}

// managed tells whether obj is one of the objects the query leaves out that no label
// marks: the API server's own default/kubernetes (its Endpoints and its slice, which
// it keeps for the kubernetes Service).
func (q listQuery) managed(obj *unstructured.Unstructured) bool {
	return !q.includeManaged && obj.GetNamespace() == "default" && obj.GetName() == "kubernetes"
}

// result is obj as a List result: for a slice, its ID; for an Endpoints object, the ID
// of an EndpointsList of that object alone. The name is the object's, prefixed with
// its namespace when every namespace is listed (names repeat across namespaces).
func (q listQuery) result(obj *unstructured.Unstructured) ListResult {
	id := idOf(obj)
	r := ListResult{ID: id.String(), Name: id.name}
	if q.kind.name == endpointsKind.name {
		r.ID = id.namespace + "?fieldSelector=" + url.QueryEscape("metadata.name="+id.name)
	}
	if q.namespace == "" {
		r.Name = id.namespace + "-" + id.name
	}
	return r
}

// requestNamespace is the namespace of the API server's list requests. A listing of
// every namespace whose field selector names one namespace (metadata.namespace=X)
// lists in X: the API server narrows such a list to X only on its first page, so the
// continue key of that page, relative to X, would be read on the next from the root
// of every namespace, and the pages would repeat or skip objects.
func (q listQuery) requestNamespace() string {
	if q.namespace != "" {
		return q.namespace
	}
	sel, err := fields.ParseSelector(q.fieldSelector)
	if err != nil {
		return ""
	}
	ns, _ := sel.RequiresExactMatch("metadata.namespace")
	return ns
}

// where names the namespace the query lists, for messages.
func (q listQuery) where() string {
	if q.namespace == "" {
		return "all namespaces"
	}
	return "namespace " + q.namespace
}

// listPosition is where a listing stands after a page: the server's continue token
// (the render directory's: the index of the next manifest), how many results the
// pages so far sent, and the most the whole listing sends: the limit of the first call
// that gives one, counted from the results sent before it. The engine repeats the
// first call's limit on every call, and `pulumi do ... list --count N` sends what is
// left of N: either way the listing stops at the first call's limit.
type listPosition struct {
	Server string `json:"c"`
	Sent   int64  `json:"n,omitempty"`
	Limit  int64  `json:"l,omitempty"`
	// Query is the fingerprint of the query the listing answers.
	Query string `json:"q"`
}

// fingerprint identifies the query, so that a token is not used with another.
func (q listQuery) fingerprint() string {
	sum := sha256.Sum256([]byte(strings.Join([]string{q.kind.token, q.namespace, q.labelSelector, q.fieldSelector,
		strconv.FormatBool(q.includeManaged)}, "\x00")))
	return hex.EncodeToString(sum[:8])
}

// token is the continuation token for position at.
func (q listQuery) token(at listPosition) string {
	at.Query = q.fingerprint()
	data, err := json.Marshal(at)
	if err != nil {
		panic(fmt.Sprintf("internal error: encoding a continuation token: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(data)
}

// resume reads a continuation token ("" for the first page): one this provider gave
// for the same query.
func (q listQuery) resume(token string) (listPosition, error) {
	if token == "" {
		return listPosition{}, nil
	}
	var at listPosition
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err == nil {
		err = json.Unmarshal(data, &at)
	}
	if err != nil || at.Server == "" {
		return at, fmt.Errorf("list %s: the continuation token %q is not one this provider gave; "+
			"start the listing again without it", q.kind.token, token)
	}
	if at.Query != q.fingerprint() {
		return at, fmt.Errorf("list %s: the continuation token belongs to a listing with another query "+
			"(namespace, selectors, includeManaged); continue a listing with the query of its first page, "+
			"or start the listing again without the token", q.kind.token)
	}
	return at, nil
}

// listed is one page of a listing: the objects, the store's token that continues it
// ("" at the end), and the version of the list ("" when the store has none).
type listed struct {
	objs          []*unstructured.Unstructured
	next, version string
}

// listPage lists up to limit objects of the query from the store, from the store's
// continue token cont, and returns the next one. A page that holds only objects left
// out (the API server's own, see listQuery.managed) is followed by the next, so that
// no page is empty but the last.
func listPage(ctx context.Context, st store, q listQuery, limit int64, cont string,
) ([]*unstructured.Unstructured, string, error) {
	for {
		page, err := st.page(ctx, q, limit, cont)
		if err != nil || len(page.objs) > 0 || page.next == "" {
			return page.objs, page.next, err
		}
		cont = page.next
	}
}

// listAll lists every object of the query from the store, limit a page, and the
// version of the list's first page: the import of a list.
func listAll(ctx context.Context, st store, q listQuery, limit int64) ([]*unstructured.Unstructured, string, error) {
	var (
		objs    []*unstructured.Unstructured
		version string
		cont    string
	)
	for {
		page, err := st.page(ctx, q, limit, cont)
		if err != nil {
			return nil, "", err
		}
		if cont == "" {
			version = page.version
		}
		objs = append(objs, page.objs...)
		if page.next == "" {
			return objs, version, nil
		}
		cont = page.next
	}
}

// page lists up to limit objects of the query on the cluster, from the server's
// continue token cont ("" for the first): one request of the API server's list.
func (s clusterStore) page(ctx context.Context, q listQuery, limit int64, cont string) (listed, error) {
	o, err := s.client(ctx)
	if err != nil {
		return listed{}, err
	}
	list, err := o.api(q.requestNamespace()).List(ctx, metav1.ListOptions{
		LabelSelector: q.selector(),
		FieldSelector: q.fieldSelector,
		Limit:         limit,
		Continue:      cont,
	})
	if err != nil {
		return listed{}, listError(o, q, err)
	}
	objs := make([]*unstructured.Unstructured, 0, len(list.Items))
	for i := range list.Items {
		if !q.managed(&list.Items[i]) {
			objs = append(objs, &list.Items[i])
		}
	}
	return listed{objs: objs, next: list.GetContinue(), version: list.GetResourceVersion()}, nil
}

// listError says what a failed list means and what the user can do: an expired
// continuation token, a list RBAC forbids, a selector the server rejects, credentials
// that failed (see credentialsFailure).
func listError(o kindClient, q listQuery, err error) error {
	what := fmt.Sprintf("list %s in %s", o.kind.resource.GroupResource(), q.where())
	if cerr := credentialsFailure(what, o.server(), err); cerr != nil {
		return cerr
	}
	var status apierrors.APIStatus
	switch {
	case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
		return fmt.Errorf("%s: the continuation token has expired (410 Gone): the API server %s no longer holds "+
			"the version of the objects the listing's first page read (etcd compacts old versions every few "+
			"minutes); start the listing again without the continuation token: %w", what, o.server(), err)
	case apierrors.IsForbidden(err) && errors.As(err, &status) && rbacDenial.MatchString(status.Status().Message):
		grant := fmt.Sprintf("a Role and RoleBinding in namespace %s", q.namespace)
		if q.namespace == "" {
			grant = "a ClusterRole and ClusterRoleBinding (or list one namespace with the namespace input, " +
				"which a Role in that namespace allows)"
		}
		return fmt.Errorf("not allowed to %s (403): the identity in the kubeconfig may not list %s in %s; "+
			"grant it the \"list\" verb on %s with %s: %w", what, o.kind.resource.GroupResource(), q.where(),
			o.kind.resource.GroupResource(), grant, err)
	case apierrors.IsBadRequest(err) && q.fieldSelector != "" && strings.Contains(err.Error(), "field"):
		return fmt.Errorf("%s: the API server rejects the input fieldSelector %q: %w", what, q.fieldSelector, err)
	case apierrors.IsBadRequest(err) && q.labelSelector != "":
		return fmt.Errorf("%s: the API server rejects the input labelSelector %q: %w", what, q.labelSelector, err)
	default:
		return fmt.Errorf("%s on the Kubernetes API server %s: %w", what, o.server(), err)
	}
}

// renderedPage lists up to limit objects of the query from the manifests of the render
// directory, in the order of their file names, from the index cont ("" for the first),
// and returns the index after the last one it read when manifests are left.
func renderedPage(t RenderTarget, q listQuery, limit int64, cont string) (listed, error) {
	start := 0
	if cont != "" {
		n, err := strconv.Atoi(cont)
		if err != nil || n < 0 {
			return listed{}, fmt.Errorf("list %s: the continuation token is not one of a render directory's "+
				"listing; start the listing again without it", q.kind.token)
		}
		start = n
	}
	pattern := t.file(q.kind, objectID{namespace: "*", name: "*"})
	files, err := filepath.Glob(pattern)
	if err != nil {
		return listed{}, fmt.Errorf("listing the manifests %s: %w", pattern, err)
	}
	slices.Sort(files)
	labelSel, err := labels.Parse(q.selector())
	if err != nil {
		return listed{}, fmt.Errorf("internal error: the label selector %q: %w", q.selector(), err)
	}
	fieldSel, err := fields.ParseSelector(q.fieldSelector)
	if err != nil {
		return listed{}, fmt.Errorf("internal error: the field selector %q: %w", q.fieldSelector, err)
	}
	var objs []*unstructured.Unstructured
	for i := start; i < len(files); i++ {
		if int64(len(objs)) == limit {
			return listed{objs: objs, next: strconv.Itoa(i)}, nil
		}
		obj, _, err := readManifestFile(files[i])
		if err != nil {
			return listed{}, err
		}
		if obj == nil || obj.GetKind() != q.kind.name || (q.namespace != "" && obj.GetNamespace() != q.namespace) ||
			!labelSel.Matches(labels.Set(obj.GetLabels())) || !fieldSel.Matches(objectFields(obj)) || q.managed(obj) {
			continue
		}
		objs = append(objs, obj)
	}
	return listed{objs: objs}, nil
}

// objectFields are the fields a field selector reads of obj.
func objectFields(obj *unstructured.Unstructured) fields.Set {
	return fields.Set{"metadata.name": obj.GetName(), "metadata.namespace": obj.GetNamespace()}
}
