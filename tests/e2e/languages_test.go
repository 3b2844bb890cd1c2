package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// TestExampleProgramsLifecycle runs the TypeScript, Python and Go programs of
// testdata/programs (an EndpointSlice, an EndpointsList and both Google lookups in
// both forms, with stack configuration) as Automation API inline programs through
// their runners, each on its own stack, namespace and Google
// double: preview -> up -> refresh (only "same") -> preview (only "same") -> port
// change -> up (updated in place) -> addressType change -> up (the slice replaced) ->
// destroy, checking the API server and the stack outputs after each step. The control
// plane runs every controller and the namespace holds the selectorless Services the
// list's items belong to, as a user's cluster would: no step warns that a controller
// will delete the items, and the mirroring controller's slices follow the list.
func TestExampleProgramsLifecycle(t *testing.T) {
	t.Parallel()
	for _, lang := range exampleLanguages {
		t.Run(lang.dir, func(t *testing.T) {
			t.Parallel()
			testExampleLifecycle(t, lang)
		})
	}
}

func testExampleLifecycle(t *testing.T, lang exampleLanguage) {
	cp := controlplane.Shared(t)
	cs := cp.Clientset()
	ns := cp.Namespace(t, "e2e")
	createExampleServices(t, cs, ns)
	double := startDouble(t)
	p := installExample(t, lang, cp.KubeconfigPath(), double)
	// The program names no namespace: its objects go to the provider's.
	p.stack.Run("stack", "init", "dev")
	p.stack.Run("config", "set", "endpoints:namespace", ns)

	// Preview: three creates (the stack, the slice, the list), nothing in the cluster.
	res := p.run(t, "preview")
	res.WantChanges(t, "preview", map[string]int{"create": 3})
	wantNoControllerWarnings(t, "preview", res, false)
	wantNoObjects(t, cs, ns, "after preview")

	// Up: the slice, the list's items, and every lookup output.
	before := lookupRequests(double)
	res = p.run(t, "up")
	res.WantChanges(t, "up", map[string]int{"create": 3})
	wantNoControllerWarnings(t, "up", res, true)
	wantExampleOutputs(t, "up", res, ns)
	after := lookupRequests(double)
	if after.files-before.files < 2 || after.policies-before.policies < 2 || after.unauthorized > 0 {
		t.Errorf("up made %d import-data-file and %d IAM-policy requests (want at least 2 each: direct and output form), %d without the token",
			after.files-before.files, after.policies-before.policies, after.unauthorized)
	}
	name := outputString(t, res, "sliceName")
	slice := getSlice(t, cs, ns, name, "after up")
	wantSlice(t, "after up", slice, "IPv4 [10.0.0.10@zone-a 10.0.0.11@zone-b] [http:8080/TCP(http)]")
	for key, value := range map[string]string{"kubernetes.io/service-name": "web", "example.com/organization": "123456789"} {
		if slice.Labels[key] != value {
			t.Errorf("after up, slice %s/%s has labels %v, want %s=%s", ns, name, slice.Labels, key, value)
		}
	}
	webLegacy := getEndpoints(t, cs, ns, "web-legacy", "after up")
	wantEndpoints(t, "after up", webLegacy, "[10.0.0.10 10.0.0.11] notReady [] [http:8080/TCP]")
	dbLegacy := getEndpoints(t, cs, ns, "db-legacy", "after up")
	wantEndpoints(t, "after up", dbLegacy, "[10.0.1.5] notReady [10.0.1.6] [:5432/TCP]")
	// The mirroring controller copies each item into a slice of its Service.
	waitMirrored(t, cs, ns, "web-legacy", "10.0.0.10,10.0.0.11 http:8080")
	waitMirrored(t, cs, ns, "db-legacy", "10.0.1.5,10.0.1.6 :5432")

	// Refresh reads the live objects: they match the state. A preview then finds
	// nothing to do: the program and the refreshed state agree.
	res = p.run(t, "refresh")
	res.WantChanges(t, "refresh", map[string]int{"same": 3})
	res = p.run(t, "preview")
	res.WantChanges(t, "preview after refresh", map[string]int{"same": 3})
	// Neither wrote to the cluster.
	if got := getSlice(t, cs, ns, name, "after refresh"); got.ResourceVersion != slice.ResourceVersion {
		t.Errorf("refresh or preview wrote slice %s/%s: resourceVersion %s, was %s", ns, name, got.ResourceVersion, slice.ResourceVersion)
	}
	if got := getEndpoints(t, cs, ns, "web-legacy", "after refresh"); got.ResourceVersion != webLegacy.ResourceVersion {
		t.Errorf("refresh or preview wrote Endpoints %s/web-legacy: resourceVersion %s, was %s", ns, got.ResourceVersion, webLegacy.ResourceVersion)
	}

	// A port change updates the slice and the list in place: same objects.
	p.stack.Run("config", "set", "port", "8081")
	res = p.run(t, "up")
	res.WantChanges(t, "up after the port change", map[string]int{"same": 1, "update": 2})
	wantNoControllerWarnings(t, "up after the port change", res, true)
	wantExampleOutputs(t, "up after the port change", res, ns)
	if got := outputString(t, res, "sliceName"); got != name {
		t.Errorf("after the port change, sliceName = %s, want %s (an update keeps the name)", got, name)
	}
	updated := getSlice(t, cs, ns, name, "after the port change")
	if updated.UID != slice.UID {
		t.Errorf("after the port change, slice %s/%s has uid %s, want %s: it was replaced, not updated", ns, name, updated.UID, slice.UID)
	}
	wantSlice(t, "after the port change", updated, "IPv4 [10.0.0.10@zone-a 10.0.0.11@zone-b] [http:8081/TCP(http)]")
	webUpdated := getEndpoints(t, cs, ns, "web-legacy", "after the port change")
	if webUpdated.UID != webLegacy.UID {
		t.Errorf("after the port change, Endpoints %s/web-legacy has uid %s, want %s: it was recreated", ns, webUpdated.UID, webLegacy.UID)
	}
	wantEndpoints(t, "after the port change", webUpdated, "[10.0.0.10 10.0.0.11] notReady [] [http:8081/TCP]")
	waitMirrored(t, cs, ns, "web-legacy", "10.0.0.10,10.0.0.11 http:8081")
	if db := getEndpoints(t, cs, ns, "db-legacy", "after the port change"); db.ResourceVersion != dbLegacy.ResourceVersion {
		t.Errorf("after the port change, Endpoints %s/db-legacy was written (resourceVersion %s, was %s); its item did not change", ns, db.ResourceVersion, dbLegacy.ResourceVersion)
	}

	// An addressType change (immutable in Kubernetes) replaces the slice: a new
	// autoname, the old object deleted. The list's addresses follow, in place.
	p.stack.Run("config", "set", "addressType", "IPv6")
	p.stack.Run("config", "set", "--path", "addresses[0]", "fd00::10")
	p.stack.Run("config", "set", "--path", "addresses[1]", "fd00::11")
	res = p.run(t, "up")
	res.WantChanges(t, "up after the addressType change", map[string]int{"same": 1, "replace": 1, "update": 1})
	wantNoControllerWarnings(t, "up after the addressType change", res, true)
	wantExampleOutputs(t, "up after the addressType change", res, ns)
	newName := outputString(t, res, "sliceName")
	if newName == name {
		t.Errorf("the replacement kept the name %s", name)
	}
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the replaced slice %s/%s still exists (err=%v)\n%s", ns, name, err, res.Log)
	}
	replaced := getSlice(t, cs, ns, newName, "after the addressType change")
	if replaced.UID == slice.UID {
		t.Errorf("the replacement %s/%s has the old uid %s", ns, newName, slice.UID)
	}
	wantSlice(t, "after the addressType change", replaced, "IPv6 [fd00::10@zone-a fd00::11@zone-b] [http:8081/TCP(http)]")
	webIPv6 := getEndpoints(t, cs, ns, "web-legacy", "after the addressType change")
	if webIPv6.UID != webLegacy.UID {
		t.Errorf("after the addressType change, Endpoints %s/web-legacy has uid %s, want %s: it was recreated", ns, webIPv6.UID, webLegacy.UID)
	}
	wantEndpoints(t, "after the addressType change", webIPv6, "[fd00::10 fd00::11] notReady [] [http:8081/TCP]")
	waitMirrored(t, cs, ns, "web-legacy", "fd00::10,fd00::11 http:8081")
	waitMirrored(t, cs, ns, "db-legacy", "10.0.1.5,10.0.1.6 :5432")

	// Destroy deletes everything; the mirrored slices go with the Endpoints.
	res = p.run(t, "destroy")
	res.WantChanges(t, "destroy", map[string]int{"delete": 3})
	waitMirrored(t, cs, ns, "web-legacy", "")
	waitMirrored(t, cs, ns, "db-legacy", "")
	wantNoObjects(t, cs, ns, "after destroy")
}

// createExampleServices creates in ns the Services the programs' EndpointsList items
// belong to, as the examples' READMEs ask: selectorless (so the Endpoints are the program's,
// and the mirroring controller copies them into slices) and headless, with the items'
// ports.
func createExampleServices(t *testing.T, cs kubernetes.Interface, ns string) {
	t.Helper()
	for name, port := range map[string]corev1.ServicePort{
		"web-legacy": {Name: "http", Port: 8080},
		"db-legacy":  {Port: 5432},
	} {
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec:       corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{port}},
		}
		if _, err := cs.CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create Service %s/%s: %v", ns, name, err)
		}
	}
}

// wantNoControllerWarnings fails the test if a step warned that a Kubernetes
// controller will overwrite or delete an object of the program (as it does for an
// EndpointsList item with no Service: "the Kubernetes endpoints controller deletes
// Endpoints that have no Service ..."). A step that writes Endpoints must show the
// API server's deprecation warning for them: the runner passes warnings on.
func wantNoControllerWarnings(t *testing.T, step string, res toolchain.ProgramResult, writesEndpoints bool) {
	t.Helper()
	var controllers []string
	deprecation := false
	for _, w := range res.Warnings {
		if strings.Contains(w, "controller") {
			controllers = append(controllers, w)
		}
		deprecation = deprecation || strings.Contains(w, "v1 Endpoints is deprecated")
	}
	if len(controllers) > 0 {
		t.Errorf("%s warned about Kubernetes controllers:\n%s", step, strings.Join(controllers, "\n"))
	}
	if writesEndpoints && !deprecation {
		t.Errorf("%s wrote Endpoints but its warnings %q lack the API server's deprecation warning for them: the runner loses warnings", step, res.Warnings)
	}
}

// wantExampleOutputs checks the stack outputs every up of the program returns: the
// slice's autoname and namespace, the list's items, and the lookup results from
// examples/fixtures/google.json, in both forms.
func wantExampleOutputs(t *testing.T, step string, res toolchain.ProgramResult, ns string) {
	t.Helper()
	want := map[string]any{
		"sliceNamespace":      ns,
		"legacyItems":         []any{"web-legacy", "db-legacy"},
		"dataFileState":       "ACTIVE",
		"dataFileFormat":      "IMPORT_JOB_FORMAT_RVTOOLS_CSV",
		"uploadUri":           "https://storage.example.com/upload/file-1?signature=demo",
		"dataFileDisplayName": "Data center inventory",
		"policyVersion":       float64(3),
		"policyEtag":          "BwYnB3ZfE1A=",
	}
	got := map[string]any{}
	for k := range want {
		got[k] = res.Outputs[k]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: stack outputs (-want +got):\n%s", step, diff)
	}
	if name, _ := res.Outputs["sliceName"].(string); !regexp.MustCompile(`^web-[0-9a-f]{8}$`).MatchString(name) {
		t.Errorf("%s: sliceName = %v, want the autoname web-<8 hex>", step, res.Outputs["sliceName"])
	}

	// The bindings, decoded whatever the language's key spelling of the policy types.
	type binding struct {
		Role      string
		Members   []string
		Condition struct{ Title, Expression string }
	}
	var bindings []binding
	if raw, err := json.Marshal(res.Outputs["policyBindings"]); err != nil || json.Unmarshal(raw, &bindings) != nil {
		t.Errorf("%s: policyBindings = %v, want a list of bindings", step, res.Outputs["policyBindings"])
	}
	var roles []string
	for _, b := range bindings {
		roles = append(roles, fmt.Sprintf("%s %v %q", b.Role, b.Members, b.Condition.Title))
	}
	wantRoles := []string{
		`roles/beyondcorp.viewer [group:network-admins@example.com] ""`,
		`roles/beyondcorp.admin [user:alice@example.com] "business hours"`,
	}
	if diff := cmp.Diff(wantRoles, roles); diff != "" {
		t.Errorf("%s: policyBindings (-want +got):\n%s", step, diff)
	}
}

func outputString(t *testing.T, res toolchain.ProgramResult, key string) string {
	t.Helper()
	s, ok := res.Outputs[key].(string)
	if !ok || s == "" {
		t.Fatalf("stack output %s = %v, want a string\nengine output:\n%s", key, res.Outputs[key], res.Log)
	}
	return s
}

type lookupCounts struct{ files, policies, unauthorized int }

// lookupRequests counts the lookup requests the double has seen so far.
func lookupRequests(double *googledouble.Server) lookupCounts {
	var c lookupCounts
	for _, r := range double.Requests() {
		switch {
		case !r.Authorized:
			c.unauthorized++
		case strings.HasSuffix(r.Path, "/importDataFiles/file-1"):
			c.files++
		case strings.HasSuffix(r.Path, "/organizations/123456789/locations/global/partnerTenants/tenant-1/proxyConfigs/proxy-1:getIamPolicy"):
			c.policies++
		}
	}
	return c
}

func getSlice(t *testing.T, cs kubernetes.Interface, ns, name, step string) *discoveryv1.EndpointSlice {
	t.Helper()
	s, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("%s, slice %s/%s: %v", step, ns, name, err)
	}
	return s
}

func getEndpoints(t *testing.T, cs kubernetes.Interface, ns, name, step string) *corev1.Endpoints {
	t.Helper()
	e, err := cs.CoreV1().Endpoints(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("%s, Endpoints %s/%s: %v", step, ns, name, err)
	}
	return e
}

// wantSlice compares a live slice, written as
// "<addressType> [<address>@<zone> ...] [<name>:<port>/<protocol>(<appProtocol>) ...]",
// with want; every endpoint must be ready.
func wantSlice(t *testing.T, step string, s *discoveryv1.EndpointSlice, want string) {
	t.Helper()
	var eps, ports []string
	for _, e := range s.Endpoints {
		zone := ""
		if e.Zone != nil {
			zone = *e.Zone
		}
		eps = append(eps, strings.Join(e.Addresses, ",")+"@"+zone)
		if e.Conditions.Ready == nil || !*e.Conditions.Ready {
			t.Errorf("%s: slice %s/%s: endpoint %v is not ready", step, s.Namespace, s.Name, e.Addresses)
		}
	}
	for _, p := range s.Ports {
		ports = append(ports, fmt.Sprintf("%s:%d/%s(%s)", deref(p.Name), deref(p.Port), deref(p.Protocol), deref(p.AppProtocol)))
	}
	got := fmt.Sprintf("%s [%s] [%s]", s.AddressType, strings.Join(eps, " "), strings.Join(ports, " "))
	if got != want {
		t.Errorf("%s: slice %s/%s is\n  %s\nwant\n  %s", step, s.Namespace, s.Name, got, want)
	}
}

// wantEndpoints compares a live Endpoints object of one subset, written as
// "[<ip> ...] notReady [<ip> ...] [<name>:<port>/<protocol> ...]", with want.
func wantEndpoints(t *testing.T, step string, e *corev1.Endpoints, want string) {
	t.Helper()
	ips := func(addrs []corev1.EndpointAddress) string {
		var s []string
		for _, a := range addrs {
			s = append(s, a.IP)
		}
		return strings.Join(s, " ")
	}
	var got []string
	for _, ss := range e.Subsets {
		var ports []string
		for _, p := range ss.Ports {
			ports = append(ports, fmt.Sprintf("%s:%d/%s", p.Name, p.Port, p.Protocol))
		}
		got = append(got, fmt.Sprintf("[%s] notReady [%s] [%s]", ips(ss.Addresses), ips(ss.NotReadyAddresses), strings.Join(ports, " ")))
	}
	if g := strings.Join(got, "; "); g != want {
		t.Errorf("%s: Endpoints %s/%s is\n  %s\nwant\n  %s", step, e.Namespace, e.Name, g, want)
	}
}

func wantNoObjects(t *testing.T, cs kubernetes.Interface, ns, step string) {
	t.Helper()
	slices, err := cs.DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	endpoints, err := cs.CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(slices.Items) != 0 || len(endpoints.Items) != 0 {
		t.Errorf("%s: namespace %s holds %d EndpointSlices and %d Endpoints, want none", step, ns, len(slices.Items), len(endpoints.Items))
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
