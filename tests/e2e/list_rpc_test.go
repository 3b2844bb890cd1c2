package e2e

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	rpcplugin "github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
)

// listAnswer is what one List call streamed.
type listAnswer struct {
	ids, names   []string
	continuation string
	computed     bool
}

// listPlugin starts the built plugin and configures it with kubeconfig, as the engine
// (and `pulumi do`) does before a List.
func listPlugin(t *testing.T, kubeconfig []byte) *plugin.Plugin {
	t.Helper()
	p := plugin.Start(t, plugin.Path(t))
	args, err := rpcplugin.MarshalProperties(resource.NewPropertyMapFromMap(map[string]any{"kubeconfig": string(kubeconfig)}),
		rpcplugin.MarshalOptions{KeepSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Configure(plugin.Context(t), &rpc.ConfigureRequest{Args: args, AcceptSecrets: true}); err != nil {
		t.Fatal(err)
	}
	return p
}

// list makes one List call over gRPC and reads its stream, checking the order the
// protocol sets: Computed alone, or results then at most one continuation.
func list(t *testing.T, p *plugin.Plugin, req *rpc.ListRequest, query map[string]any) (listAnswer, error) {
	t.Helper()
	q := resource.PropertyMap{}
	for k, v := range query {
		if pv, ok := v.(resource.PropertyValue); ok {
			q[resource.PropertyKey(k)] = pv
		} else {
			q[resource.PropertyKey(k)] = resource.NewPropertyValue(v)
		}
	}
	var err error
	req.Query, err = rpcplugin.MarshalProperties(q, rpcplugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	stream, err := p.List(plugin.Context(t), req)
	if err != nil {
		return listAnswer{}, err
	}
	var a listAnswer
	for n := 0; ; n++ {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return a, nil
		}
		if err != nil {
			return a, err
		}
		switch {
		case a.computed || a.continuation != "":
			t.Fatalf("List streamed %v after its Computed or Continuation answer", resp)
		case resp.GetComputed() != nil:
			if n > 0 {
				t.Fatalf("List streamed Computed after results")
			}
			a.computed = true
		case resp.GetResult() != nil:
			a.ids, a.names = append(a.ids, resp.GetResult().GetId()), append(a.names, resp.GetResult().GetName())
		case resp.GetContinuation() != nil:
			a.continuation = resp.GetContinuation().GetContinuationToken()
		}
	}
}

// outsideSlice creates an EndpointSlice outside Pulumi, with labels.
func outsideSlice(t *testing.T, cp *controlplane.ControlPlane, ns, name string, labels map[string]string) {
	t.Helper()
	port := int32(80)
	if _, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Create(t.Context(), &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: name, Labels: labels},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.6.0.1"}}},
		Ports:       []discoveryv1.EndpointPort{{Port: &port}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// outsideEndpoints creates an Endpoints object outside Pulumi, with labels.
func outsideEndpoints(t *testing.T, cp *controlplane.ControlPlane, ns, name string, labels map[string]string) {
	t.Helper()
	if _, err := cp.Clientset().CoreV1().Endpoints(ns).Create(t.Context(), &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "10.6.0.2"}},
			Ports:     []corev1.EndpointPort{{Port: 80}},
		}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// List over the real gRPC boundary against the real API server: pages of PageSize,
// continuation tokens that go on where the page before stopped, a Limit over the
// whole listing, the controllers' objects left out unless asked for, a query with
// unknown values answered Computed, and a bad query named.
func TestListRPC(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "list")
	controllers := cp.SelectedService(t, ns, "svc") // the EndpointSlice and endpoints controllers' objects
	var want []string
	for i := range 7 {
		name := fmt.Sprintf("s%d", i)
		outsideSlice(t, cp, ns, name, map[string]string{"tier": []string{"web", "api"}[i%2]})
		want = append(want, ns+"/"+name)
	}
	p := listPlugin(t, cp.Kubeconfig())
	listSlices := func(req *rpc.ListRequest, query map[string]any) (listAnswer, error) {
		req.Token = spec.EndpointSliceToken
		return list(t, p, req, query)
	}

	// Pages of 3, each continuing the one before.
	var got []string
	var pages []int
	token := ""
	for {
		a, err := listSlices(&rpc.ListRequest{PageSize: 3, ContinuationToken: token}, map[string]any{"namespace": ns})
		if err != nil {
			t.Fatal(err)
		}
		got, pages = append(got, a.ids...), append(pages, len(a.ids))
		if token = a.continuation; token == "" {
			break
		}
	}
	if !slices.Equal(got, want) || !slices.Equal(pages, []int{3, 3, 1}) {
		t.Errorf("pages of 3: %v in pages of %v, want %v in pages of 3, 3, 1", got, pages, want)
	}

	// A Limit over the whole listing: the engine repeats the first call's limit.
	first, err := listSlices(&rpc.ListRequest{PageSize: 3, Limit: 5}, map[string]any{"namespace": ns})
	if err != nil {
		t.Fatal(err)
	}
	second, err := listSlices(&rpc.ListRequest{PageSize: 3, Limit: 5, ContinuationToken: first.continuation},
		map[string]any{"namespace": ns})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.ids) != 3 || len(second.ids) != 2 || second.continuation != "" {
		t.Errorf("limit 5 in pages of 3: %d then %d results, then token %q; want 3, 2 and none",
			len(first.ids), len(second.ids), second.continuation)
	}

	// The controllers' slice only on request; selectors; names within one namespace.
	all, err := listSlices(&rpc.ListRequest{}, map[string]any{"namespace": ns, "includeManaged": true})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.ids) != 8 || !slices.Contains(all.ids, ns+"/"+controllers.Name) {
		t.Errorf("includeManaged: %v, want the 7 slices and the controller's %s", all.ids, controllers.Name)
	}
	web, err := listSlices(&rpc.ListRequest{}, map[string]any{"namespace": ns, "labelSelector": "tier=web",
		"fieldSelector": "metadata.name!=s0"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(web.ids, []string{ns + "/s2", ns + "/s4", ns + "/s6"}) || web.names[0] != "s2" {
		t.Errorf("tier=web without s0: %v named %v", web.ids, web.names)
	}

	// Every namespace: names carry the namespace.
	everywhere, err := listSlices(&rpc.ListRequest{}, map[string]any{"labelSelector": "tier=api"})
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(everywhere.ids, ns+"/s1"); i < 0 || everywhere.names[i] != ns+"-s1" {
		t.Errorf("every namespace: %v named %v, want %s/s1 named %s-s1", everywhere.ids, everywhere.names, ns, ns)
	}

	// Unknown values: Computed alone. A bad query: an error naming the input.
	computed, err := listSlices(&rpc.ListRequest{}, map[string]any{"namespace": resource.MakeComputed(resource.NewProperty(""))})
	if err != nil || !computed.computed || len(computed.ids) > 0 {
		t.Errorf("a query with an unknown namespace: %+v, %v; want Computed alone", computed, err)
	}
	for query, want := range map[string]map[string]any{
		"labelSelector":                    {"labelSelector": "tier in web"},
		"fieldSelector":                    {"fieldSelector": "spec.x=1"},
		`unknown input "selector"`:         {"selector": "x"},
		"includeManaged must be a boolean": {"includeManaged": "yes"},
	} {
		if _, err := listSlices(&rpc.ListRequest{}, want); err == nil || !strings.Contains(err.Error(), query) {
			t.Errorf("query %v: err = %v, want one naming %s", want, err, query)
		}
	}

	// Endpoints: one result per object, the ID of an EndpointsList of it alone; the
	// endpoints controller's object only on request.
	for _, name := range []string{"e1", "e2"} {
		outsideEndpoints(t, cp, ns, name, map[string]string{"set": "a"})
	}
	eps, err := list(t, p, &rpc.ListRequest{Token: spec.EndpointsListToken}, map[string]any{"namespace": ns})
	if err != nil {
		t.Fatal(err)
	}
	wantIDs := []string{ns + "?fieldSelector=metadata.name%3De1", ns + "?fieldSelector=metadata.name%3De2"}
	if !slices.Equal(eps.ids, wantIDs) || !slices.Equal(eps.names, []string{"e1", "e2"}) {
		t.Errorf("Endpoints: %v named %v, want %v named e1, e2", eps.ids, eps.names, wantIDs)
	}
	eps, err = list(t, p, &rpc.ListRequest{Token: spec.EndpointsListToken}, map[string]any{"namespace": ns, "includeManaged": true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(eps.ids, ns+"?fieldSelector=metadata.name%3Dsvc") {
		t.Errorf("Endpoints with includeManaged: %v, want the endpoints controller's svc too", eps.ids)
	}
}

// A continuation token whose version etcd has compacted: the API server answers 410
// Gone, and List says to start again. kube-apiserver 1.34 serves continues from its
// watch cache's snapshots until it learns of the compaction (it polls every 15 s), so
// the test continues until the answer changes.
func TestListRPCExpiredToken(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "list-expired")
	for i := range 4 {
		outsideEndpoints(t, cp, ns, fmt.Sprintf("e%d", i), nil)
	}
	p := listPlugin(t, cp.Kubeconfig())
	query := map[string]any{"namespace": ns}
	first, err := list(t, p, &rpc.ListRequest{Token: spec.EndpointsListToken, PageSize: 2}, query)
	if err != nil || first.continuation == "" {
		t.Fatalf("first page: %+v, %v; want 2 results and a continuation token", first, err)
	}
	outsideEndpoints(t, cp, ns, "later", nil) // a change after the first page's version
	if _, err := cp.CompactEtcd(t.Context()); err != nil {
		t.Fatal(err)
	}
	compacted := time.Now()
	deadline := compacted.Add(60 * time.Second)
	for {
		_, err := list(t, p, &rpc.ListRequest{Token: spec.EndpointsListToken, PageSize: 2,
			ContinuationToken: first.continuation}, query)
		if err != nil {
			t.Logf("the continuation token expired %v after etcd's compaction", time.Since(compacted).Round(time.Second))
			for _, want := range []string{"continuation token has expired (410 Gone)", "start the listing again"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the expired token's error does not say %q: %v", want, err)
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the API server still continues the listing a minute after etcd's compaction")
		}
		time.Sleep(2 * time.Second)
	}
}

// An identity that may get EndpointSlices but not list them: List says what it may
// not do, where, and what to grant.
func TestListRPCForbidden(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "list-rbac")
	kubeconfig, err := cp.MintIdentity(t.Context(), "getter", ns, []rbacv1.PolicyRule{{
		APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	p := listPlugin(t, kubeconfig)
	for query, want := range map[string][]string{
		ns: {"may not list endpointslices.discovery.k8s.io in namespace " + ns,
			`grant it the "list" verb on endpointslices.discovery.k8s.io with a Role and RoleBinding in namespace ` + ns},
		"": {"may not list endpointslices.discovery.k8s.io in all namespaces", "ClusterRole"},
	} {
		q := map[string]any{}
		if query != "" {
			q["namespace"] = query
		}
		_, err := list(t, p, &rpc.ListRequest{Token: spec.EndpointSliceToken}, q)
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("List in %q as an identity that may not list: err = %v, want it to say %q", query, err, w)
			}
		}
	}
}
