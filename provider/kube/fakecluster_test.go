package kube

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// fakeCluster is an API server that keeps the objects written to it, for the lost
// answers of the provider's writes: creates (generateName included), gets, lists (by
// an equality label selector), updates guarded by resourceVersion and UID, and
// deletes with a UID precondition. fault, when set, is asked after each request has
// taken effect: "drop" closes the connection without an answer, "504" answers a
// ServerTimeout with Retry-After, as kube-apiserver does when etcd commits late.
type fakeCluster struct {
	mu      sync.Mutex
	objs    map[string]map[string]any // by collection path + "/" + name
	serial  int
	posts   int
	faultFn func(method, path string) string
}

// startCluster starts a fakeCluster for the test and returns it with a client for it.
func startCluster(t *testing.T) (*fakeCluster, *Client) {
	t.Helper()
	f := &fakeCluster{objs: map[string]map[string]any{}}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return f, kindClientAt(t, strings.TrimPrefix(srv.URL, "http://"), 0).client
}

// fault sets what happens to the answers from now on (see fakeCluster).
func (f *fakeCluster) fault(fn func(method, path string) string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faultFn = fn
}

// put stores obj under the collection as another client would write it.
func (f *fakeCluster) put(collection string, obj map[string]any) *unstructured.Unstructured {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := &unstructured.Unstructured{Object: obj}
	f.serial++
	u.SetUID(typesUID(f.serial))
	u.SetResourceVersion(strconv.Itoa(f.serial))
	f.objs[collection+"/"+u.GetName()] = u.Object
	return u.DeepCopy()
}

// remove deletes the object as another client would.
func (f *fakeCluster) remove(collection, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.objs, collection+"/"+name)
}

// list is the objects of the collection.
func (f *fakeCluster) list(collection string) []*unstructured.Unstructured {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*unstructured.Unstructured
	for key, obj := range f.objs {
		if strings.HasPrefix(key, collection+"/") {
			out = append(out, (&unstructured.Unstructured{Object: obj}).DeepCopy())
		}
	}
	return out
}

func (f *fakeCluster) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	code, answer := f.apply(r, body)
	fault := ""
	if f.faultFn != nil {
		fault = f.faultFn(r.Method, r.URL.Path)
	}
	f.mu.Unlock()
	switch fault {
	case "drop":
		if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = c.Close()
		}
		return
	case "504":
		code, answer = http.StatusGatewayTimeout, statusBody(http.StatusGatewayTimeout, "Timeout",
			"The request did not complete within the allotted timeout")
		w.Header().Set("Retry-After", "1")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, answer)
}

// apply does what the request asks, under f.mu, and returns the answer.
func (f *fakeCluster) apply(r *http.Request, body []byte) (int, string) {
	path := r.URL.Path
	collection, name := path, ""
	if i := strings.LastIndex(path, "/"); !strings.HasSuffix(path, "endpointslices") && !strings.HasSuffix(path, "endpoints") {
		collection, name = path[:i], path[i+1:]
	}
	key := collection + "/" + name
	var in map[string]any
	if len(body) > 0 {
		_ = json.Unmarshal(body, &in)
	}
	switch {
	case r.Method == http.MethodGet && name == "":
		return f.listAnswer(collection, r.URL.Query().Get("labelSelector"))
	case r.Method == http.MethodGet:
		return f.objectAnswer(key)
	case r.Method == http.MethodPost:
		return f.create(collection, in, r.URL.Query().Get("fieldManager"))
	case r.Method == http.MethodPut:
		return f.update(key, in, r.URL.Query().Get("fieldManager"))
	case r.Method == http.MethodDelete:
		return f.delete(key, in)
	}
	return http.StatusNotFound, statusBody(http.StatusNotFound, "NotFound", "not found")
}

func (f *fakeCluster) objectAnswer(key string) (int, string) {
	obj, ok := f.objs[key]
	if !ok {
		return http.StatusNotFound, statusBody(http.StatusNotFound, "NotFound", key+" not found")
	}
	b, _ := json.Marshal(obj)
	return http.StatusOK, string(b)
}

func (f *fakeCluster) listAnswer(collection, selector string) (int, string) {
	label, value, _ := strings.Cut(selector, "=")
	items := []any{}
	for key, obj := range f.objs {
		u := unstructured.Unstructured{Object: obj}
		if strings.HasPrefix(key, collection+"/") && (selector == "" || u.GetLabels()[label] == value) {
			items = append(items, obj)
		}
	}
	b, _ := json.Marshal(map[string]any{"kind": "List", "apiVersion": "v1", "metadata": map[string]any{
		"resourceVersion": strconv.Itoa(f.serial)}, "items": items})
	return http.StatusOK, string(b)
}

func (f *fakeCluster) create(collection string, in map[string]any, manager string) (int, string) {
	f.posts++
	u := &unstructured.Unstructured{Object: in}
	f.serial++
	if u.GetName() == "" {
		u.SetName(u.GetGenerateName() + strconv.Itoa(f.serial))
	}
	if _, taken := f.objs[collection+"/"+u.GetName()]; taken {
		return http.StatusConflict, statusBody(http.StatusConflict, "AlreadyExists", u.GetName()+" already exists")
	}
	u.SetUID(typesUID(f.serial))
	u.SetResourceVersion(strconv.Itoa(f.serial))
	u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: manager}})
	f.objs[collection+"/"+u.GetName()] = u.Object
	return f.objectAnswer(collection + "/" + u.GetName())
}

func (f *fakeCluster) update(key string, in map[string]any, manager string) (int, string) {
	old, ok := f.objs[key]
	if !ok {
		return http.StatusNotFound, statusBody(http.StatusNotFound, "NotFound", key+" not found")
	}
	was, u := unstructured.Unstructured{Object: old}, &unstructured.Unstructured{Object: in}
	if (u.GetUID() != "" && u.GetUID() != was.GetUID()) || u.GetResourceVersion() != was.GetResourceVersion() {
		return http.StatusConflict, statusBody(http.StatusConflict, "Conflict", key+" was modified")
	}
	f.serial++
	u.SetUID(was.GetUID())
	u.SetResourceVersion(strconv.Itoa(f.serial))
	u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: manager}})
	f.objs[key] = u.Object
	return f.objectAnswer(key)
}

func (f *fakeCluster) delete(key string, in map[string]any) (int, string) {
	old, ok := f.objs[key]
	if !ok {
		return http.StatusNotFound, statusBody(http.StatusNotFound, "NotFound", key+" not found")
	}
	uid, _, _ := unstructured.NestedString(in, "preconditions", "uid")
	if uid != "" && uid != string((&unstructured.Unstructured{Object: old}).GetUID()) {
		return http.StatusConflict, statusBody(http.StatusConflict, "Conflict", "Precondition failed: UID in precondition: "+uid)
	}
	delete(f.objs, key)
	return http.StatusOK, `{"kind":"Status","apiVersion":"v1","status":"Success"}`
}

// typesUID is the UID of the n-th object written.
func typesUID(n int) types.UID { return types.UID(fmt.Sprintf("uid-%d", n)) }
