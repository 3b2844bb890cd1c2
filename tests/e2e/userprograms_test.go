package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// User programs: YAML programs written the way users write them, run through the CLI
// the way users run it. Every `up` and `destroy` runs with its preview (no
// --skip-preview), so the provider's preview path (Check, Diff, the server-side dry
// run) sees the same programs as the update. After each up, refresh and preview must
// find nothing to change.

// stateResource is a resource of the stack's state, as `pulumi stack export` shows it.
type stateResource struct {
	URN                 string         `json:"urn"`
	Type                string         `json:"type"`
	ID                  string         `json:"id"`
	Inputs              map[string]any `json:"inputs"`
	Outputs             map[string]any `json:"outputs"`
	RefreshBeforeUpdate bool           `json:"refreshBeforeUpdate"`
}

// stateResources returns the resources of the stack's state.
func stateResources(t *testing.T, s *stack) []stateResource {
	t.Helper()
	var state struct {
		Deployment struct {
			Resources []stateResource `json:"resources"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal([]byte(s.Run("stack", "export")), &state); err != nil {
		t.Fatal(err)
	}
	return state.Deployment.Resources
}

// stackResources returns the stack's custom resources of this provider by logical
// name.
func stackResources(t *testing.T, s *stack) map[string]stateResource {
	t.Helper()
	byName := map[string]stateResource{}
	for _, r := range stateResources(t, s) {
		if !strings.HasPrefix(r.Type, "endpoints:") {
			continue
		}
		byName[logicalName(r.URN)] = r
	}
	return byName
}

// describeSlice writes a live slice as
// "<addressType> [<addresses>{<ready>,<serving>,<terminating>}@<hostname> ...] [<name>:<port>/<protocol> ...]",
// where an unset condition or field is "-".
func describeSlice(s *discoveryv1.EndpointSlice) string {
	opt := func(b *bool) string {
		if b == nil {
			return "-"
		}
		return fmt.Sprint(*b)
	}
	str := func(p *string) string {
		if p == nil {
			return "-"
		}
		return *p
	}
	eps := []string{}
	for _, e := range s.Endpoints {
		c := e.Conditions
		eps = append(eps, fmt.Sprintf("%s{%s,%s,%s}@%s", strings.Join(e.Addresses, ","),
			opt(c.Ready), opt(c.Serving), opt(c.Terminating), str(e.Hostname)))
	}
	ports := []string{}
	for _, p := range s.Ports {
		port := "-"
		if p.Port != nil {
			port = fmt.Sprint(*p.Port)
		}
		ports = append(ports, fmt.Sprintf("%s:%s/%s", str(p.Name), port, str((*string)(p.Protocol))))
	}
	return fmt.Sprintf("%s [%s] [%s]", s.AddressType, strings.Join(eps, " "), strings.Join(ports, " "))
}

func wantSliceIs(t *testing.T, step string, s *discoveryv1.EndpointSlice, want string) {
	t.Helper()
	if got := describeSlice(s); got != want {
		t.Errorf("%s: slice %s/%s is\n  %s\nwant\n  %s", step, s.Namespace, s.Name, got, want)
	}
}

// endpointsTriples expands subsets into their sorted "<ip> <ready|notReady> <name>:<port>/<protocol>"
// triples: the meaning of the subsets, whatever their packing ("<none>" for an address
// of a subset without ports).
func endpointsTriples(subsets []corev1.EndpointSubset) []string {
	var out []string
	for _, ss := range subsets {
		ports := []string{}
		for _, p := range ss.Ports {
			protocol := p.Protocol
			if protocol == "" {
				protocol = corev1.ProtocolTCP
			}
			ports = append(ports, fmt.Sprintf("%s:%d/%s", p.Name, p.Port, protocol))
		}
		if len(ports) == 0 {
			ports = []string{"<none>"}
		}
		for _, port := range ports {
			for _, a := range ss.Addresses {
				out = append(out, a.IP+" ready "+port)
			}
			for _, a := range ss.NotReadyAddresses {
				out = append(out, a.IP+" notReady "+port)
			}
		}
	}
	sort.Strings(out)
	return out
}

// describeSubsets writes subsets as sorted "[<ip> ...] notReady [<ip> ...] [<name>:<port>/<protocol> ...]"
// strings, joined by "; ": the server's packing, independent of its (hash) order of
// subsets and ports.
func describeSubsets(subsets []corev1.EndpointSubset) string {
	ips := func(addrs []corev1.EndpointAddress) string {
		var s []string
		for _, a := range addrs {
			s = append(s, a.IP)
		}
		return strings.Join(s, " ")
	}
	var out []string
	for _, ss := range subsets {
		var ports []string
		for _, p := range ss.Ports {
			ports = append(ports, fmt.Sprintf("%s:%d/%s", p.Name, p.Port, p.Protocol))
		}
		sort.Strings(ports)
		out = append(out, fmt.Sprintf("[%s] notReady [%s] [%s]", ips(ss.Addresses), ips(ss.NotReadyAddresses), strings.Join(ports, " ")))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

const sparseProgram = `name: e2e-sparse
runtime: yaml
resources:
  # Endpoints without conditions, and no ports at all.
  bare:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        name: bare
        namespace: %[1]s
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.2"]
        - addresses: ["10.0.0.1"]
          hostname: b
  # Nothing at all: explicit empty lists.
  empty:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        name: empty
        namespace: %[1]s
      addressType: IPv4
      endpoints: []
      ports: []
  # Ports without name or protocol.
  unnamed-ports:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        name: unnamed-ports
        namespace: %[1]s
      addressType: IPv6
      endpoints:
        - addresses: ["fd00::1"]
          conditions:
            ready: true
      ports:
        - port: 8080
  # One Endpoints object with a subset without ports, a subset with notReadyAddresses,
  # and two subsets with the same ports (one subset in the canonical packing), with
  # addresses out of order.
  legacy:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata:
            name: sparse
            namespace: %[1]s
          subsets:
            - addresses:
                - ip: 10.1.0.3
                - ip: 10.1.0.1
                - ip: 10.1.0.2
            - addresses:
                - ip: 10.2.0.9
              notReadyAddresses:
                - ip: 10.2.0.10
              ports:
                - port: 9090
            - addresses:
                - ip: 10.3.0.2
              ports:
                - name: https
                  port: 443
                - name: http
                  port: 80
            - addresses:
                - ip: 10.3.0.1
              ports:
                - name: https
                  port: 443
                - name: http
                  port: 80
`

// Sparse inputs: everything the API server defaults or omits, and Endpoints subsets
// packed differently from the program, round-trip through up, refresh and preview
// without spurious changes.
func TestUserProgramsSparseInputs(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	cs := cp.Clientset()
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(sparseProgram, ns))

	s.upWithPreview()
	step := "after up"
	wantSliceIs(t, step, getSlice(t, cs, ns, "bare", step), "IPv4 [10.0.0.2{-,-,-}@- 10.0.0.1{-,-,-}@b] []")
	wantSliceIs(t, step, getSlice(t, cs, ns, "empty", step), "IPv4 [] []")
	wantSliceIs(t, step, getSlice(t, cs, ns, "unnamed-ports", step), "IPv6 [fd00::1{true,-,-}@-] [:8080/TCP]")

	e := getEndpoints(t, cs, ns, "sparse", step)
	wantTriples := []string{
		"10.1.0.1 ready <none>", "10.1.0.2 ready <none>", "10.1.0.3 ready <none>",
		"10.2.0.10 notReady :9090/TCP", "10.2.0.9 ready :9090/TCP",
		"10.3.0.1 ready http:80/TCP", "10.3.0.1 ready https:443/TCP",
		"10.3.0.2 ready http:80/TCP", "10.3.0.2 ready https:443/TCP",
	}
	if got := endpointsTriples(e.Subsets); strings.Join(got, "\n") != strings.Join(wantTriples, "\n") {
		t.Errorf("%s: Endpoints %s/sparse means\n  %s\nwant\n  %s", step, ns, strings.Join(got, "\n  "),
			strings.Join(wantTriples, "\n  "))
	}
	// kube-apiserver 1.34 stores the subsets as written; releases before 1.33 repacked
	// them on every write (RepackSubsets), and the endpoints controller still does.
	wantPacking := "[10.1.0.3 10.1.0.1 10.1.0.2] notReady [] []; " +
		"[10.2.0.9] notReady [10.2.0.10] [:9090/TCP]; " +
		"[10.3.0.1] notReady [] [http:80/TCP https:443/TCP]; " +
		"[10.3.0.2] notReady [] [http:80/TCP https:443/TCP]"
	if got := describeSubsets(e.Subsets); got != wantPacking {
		t.Errorf("%s: Endpoints %s/sparse is packed as\n  %s\nwant (as the program wrote it)\n  %s", step, ns, got, wantPacking)
	}
	s.expectQuiet()

	// Another writer repacks the subsets into the canonical layout (one subset per set
	// of addresses, addresses sorted), as older API servers did on every write: the same
	// Endpoints, packed differently from the program. Refresh and preview stay quiet.
	tcp := corev1.ProtocolTCP
	e.Subsets = []corev1.EndpointSubset{
		{Addresses: []corev1.EndpointAddress{{IP: "10.1.0.1"}, {IP: "10.1.0.2"}, {IP: "10.1.0.3"}}},
		{
			Addresses:         []corev1.EndpointAddress{{IP: "10.2.0.9"}},
			NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.2.0.10"}},
			Ports:             []corev1.EndpointPort{{Port: 9090, Protocol: tcp}},
		},
		{
			Addresses: []corev1.EndpointAddress{{IP: "10.3.0.1"}, {IP: "10.3.0.2"}},
			Ports:     []corev1.EndpointPort{{Name: "http", Port: 80, Protocol: tcp}, {Name: "https", Port: 443, Protocol: tcp}},
		},
	}
	if _, err := cs.CoreV1().Endpoints(ns).Update(t.Context(), e, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("repacking Endpoints %s/sparse: %v", ns, err)
	}
	step = "after repacking"
	e = getEndpoints(t, cs, ns, "sparse", step)
	if got := endpointsTriples(e.Subsets); strings.Join(got, "\n") != strings.Join(wantTriples, "\n") {
		t.Fatalf("%s: the repacked Endpoints %s/sparse means\n  %s\nwant\n  %s", step, ns, strings.Join(got, "\n  "),
			strings.Join(wantTriples, "\n  "))
	}
	if got, want := describeSubsets(e.Subsets), "[10.1.0.1 10.1.0.2 10.1.0.3] notReady [] []; "+
		"[10.2.0.9] notReady [10.2.0.10] [:9090/TCP]; [10.3.0.1 10.3.0.2] notReady [] [http:80/TCP https:443/TCP]"; got != want {
		t.Fatalf("%s: Endpoints %s/sparse is packed as\n  %s\nwant\n  %s", step, ns, got, want)
	}

	s.expectQuiet()
	s.destroyWithPreview()
	wantNoObjects(t, cs, ns, "after destroy")
}

const camelCaseProgram = `name: e2e-camelcase
runtime: yaml
resources:
  webSlice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.1"]
          conditions:
            ready: true
      ports:
        - name: http
          port: 80
  my_slice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.2"]
  svc.v2:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.3"]
  API_Backend:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
      addressType: IPv6
      endpoints:
        - addresses: ["fd00::4"]
  legacyList:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata:
            name: legacy
            namespace: %[1]s
          subsets:
            - addresses:
                - ip: 10.0.0.5
              ports:
                - port: 80
`

// Autonamed resources whose logical names are not valid object names (camelCase,
// underscores, capitals) get valid, lowercased object names that start with the
// sanitized logical name.
func TestUserProgramsCamelCaseAutonames(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	cs := cp.Clientset()
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(camelCaseProgram, ns))

	s.upWithPreview()
	step := "after up"
	prefixes := map[string]string{
		"webSlice":    "webslice",
		"my_slice":    "my-slice",
		"svc.v2":      "svc.v2",
		"API_Backend": "api-backend",
	}
	resources := stackResources(t, s)
	seen := map[string]bool{}
	for logical, prefix := range prefixes {
		r, ok := resources[logical]
		if !ok {
			t.Errorf("%s: resource %s is not in the state", step, logical)
			continue
		}
		namespace, name, _ := strings.Cut(r.ID, "/")
		t.Logf("%s: %s is named %s", step, logical, name)
		if namespace != ns {
			t.Errorf("%s: %s has ID %q, want it in namespace %s", step, logical, r.ID, ns)
		}
		if !regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `-[0-9a-f]{8}$`).MatchString(name) {
			t.Errorf("%s: %s is named %q, want %s-<8 hex>", step, logical, name, prefix)
		}
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			t.Errorf("%s: %s is named %q, not a valid object name: %v", step, logical, name, errs)
		}
		live := getSlice(t, cs, ns, name, step)
		if meta, _ := r.Outputs["metadata"].(map[string]any); meta["uid"] != string(live.UID) {
			t.Errorf("%s: %s: state uid %v, live uid %s", step, logical, meta["uid"], live.UID)
		}
		seen[name] = true
	}
	l, err := cs.DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != len(prefixes) {
		t.Errorf("%s: namespace %s holds %d slices, want %d", step, ns, len(l.Items), len(prefixes))
	}
	for _, o := range l.Items {
		if !seen[o.Name] {
			t.Errorf("%s: slice %s/%s is in the cluster but not in the state", step, ns, o.Name)
		}
	}
	getEndpoints(t, cs, ns, "legacy", step)

	s.expectQuiet()
	s.destroyWithPreview()
	wantNoObjects(t, cs, ns, "after destroy")
}

const fixedNameSliceProgram = `name: e2e-fixed-name
runtime: yaml
resources:
  web:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        name: web
        namespace: %[1]s
        labels:
          app: web
      addressType: %[2]s
      endpoints:
        - addresses: ["%[3]s"]
          conditions:
            ready: true
      ports:
        - name: http
          port: 80
`

// A slice with a fixed name whose addressType changes is replaced (deleted, then
// created under the same name) by an up with its preview.
func TestUserProgramsFixedNameAddressTypeReplacement(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	cs := cp.Clientset()
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(fixedNameSliceProgram, ns, "IPv4", "10.0.0.1"))

	s.upWithPreview()
	step := "after the first up"
	before := getSlice(t, cs, ns, "web", step)
	wantSliceIs(t, step, before, "IPv4 [10.0.0.1{true,-,-}@-] [http:80/TCP]")
	s.expectQuiet()

	s.WriteProject(fmt.Sprintf(fixedNameSliceProgram, ns, "IPv6", "fd00::1"))
	out := s.upWithPreview()
	step = "after the replacing up"
	after := getSlice(t, cs, ns, "web", step)
	wantSliceIs(t, step, after, "IPv6 [fd00::1{true,-,-}@-] [http:80/TCP]")
	if after.UID == before.UID {
		t.Errorf("%s: slice %s/web kept its uid %s; want a new object\n%s", step, ns, before.UID, out)
	}
	if after.Labels["app"] != "web" {
		t.Errorf("%s: slice %s/web labels = %v, want app=web", step, ns, after.Labels)
	}
	if r := stackResources(t, s)["web"]; r.ID != ns+"/web" {
		t.Errorf("%s: state ID %q, want %s/web", step, r.ID, ns)
	} else if meta, _ := r.Outputs["metadata"].(map[string]any); meta["uid"] != string(after.UID) {
		t.Errorf("%s: state uid %v, live uid %s", step, meta["uid"], after.UID)
	}

	s.expectQuiet()
	s.destroyWithPreview()
	wantNoObjects(t, cs, ns, "after destroy")
}

const renamedItemsProgram = `name: e2e-rename-items
runtime: yaml
resources:
  legacy:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata:
            name: %[2]s
            namespace: %[1]s
          subsets:
            - addresses:
                - ip: 10.0.0.1
              ports:
                - name: http
                  port: 80
        - metadata:
            name: c
            namespace: %[1]s
          subsets:
            - addresses:
                - ip: 10.0.0.3
              ports:
                - name: http
                  port: 80
`

// Renaming an item of an EndpointsList creates the new object, keeps the unchanged
// one and deletes the old one.
func TestUserProgramsEndpointsListItemRename(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	cs := cp.Clientset()
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(renamedItemsProgram, ns, "a"))

	s.upWithPreview()
	step := "after the first up"
	wantEndpoints(t, step, getEndpoints(t, cs, ns, "a", step), "[10.0.0.1] notReady [] [http:80/TCP]")
	c := getEndpoints(t, cs, ns, "c", step)
	wantEndpoints(t, step, c, "[10.0.0.3] notReady [] [http:80/TCP]")
	s.expectQuiet()

	s.WriteProject(fmt.Sprintf(renamedItemsProgram, ns, "b"))
	s.upWithPreview()
	step = "after renaming a to b"
	wantEndpoints(t, step, getEndpoints(t, cs, ns, "b", step), "[10.0.0.1] notReady [] [http:80/TCP]")
	if c2 := getEndpoints(t, cs, ns, "c", step); c2.UID != c.UID {
		t.Errorf("%s: Endpoints %s/c was recreated (uid %s, was %s); want it kept", step, ns, c2.UID, c.UID)
	}
	if _, err := cs.CoreV1().Endpoints(ns).Get(t.Context(), "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("%s: Endpoints %s/a still exists (err=%v)", step, ns, err)
	}
	l, err := cs.CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 {
		t.Errorf("%s: namespace %s holds %d Endpoints, want 2 (b and c)", step, ns, len(l.Items))
	}

	s.expectQuiet()
	s.destroyWithPreview()
	wantNoObjects(t, cs, ns, "after destroy")
}

// largeListProgram is an EndpointsList of many items the way users write them: a
// camelCase logical name, items in no particular order, some without ports, one
// named by generateName. names lists the named items (svc-NN: address 10.0.9.NN, no
// ports when NN ends in 0, 4 or 8); changed gets port 8080.
func largeListProgram(ns string, names []string, changed string) string {
	var b strings.Builder
	b.WriteString("name: e2e-large-list\nruntime: yaml\nresources:\n  legacyEndpoints:\n" +
		"    type: endpoints:core/v1:EndpointsList\n    properties:\n      items:\n")
	for _, name := range names {
		number, err := strconv.Atoi(strings.TrimPrefix(name, "svc-"))
		if err != nil {
			panic("item name " + name + " is not svc-NN")
		}
		fmt.Fprintf(&b, "        - metadata:\n            name: %s\n            namespace: %s\n"+
			"          subsets:\n            - addresses:\n                - ip: 10.0.9.%d\n", name, ns, number)
		if strings.HasSuffix(name, "0") || strings.HasSuffix(name, "4") || strings.HasSuffix(name, "8") {
			continue // no ports: they are optional
		}
		port := 80
		if name == changed {
			port = 8080
		}
		fmt.Fprintf(&b, "              ports:\n                - name: http\n                  port: %d\n", port)
	}
	fmt.Fprintf(&b, "        - metadata:\n            generateName: gen-\n            namespace: %s\n"+
		"          subsets:\n            - addresses:\n                - ip: 10.0.9.200\n", ns)
	return b.String()
}

// endpointsPuts is the number of PUT requests for Endpoints the API server has
// answered, dry runs included.
func endpointsPuts(t *testing.T, cp *controlplane.ControlPlane) int {
	t.Helper()
	body, err := cp.Clientset().CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(t.Context())
	if err != nil {
		t.Fatalf("reading the API server's metrics: %v", err)
	}
	n := 0
	for line := range strings.Lines(string(body)) {
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="endpoints"`) ||
			!strings.Contains(line, `verb="PUT"`) {
			continue
		}
		fields := strings.Fields(line)
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			t.Fatalf("parsing the API server's metrics: %v", err)
		}
		n += int(v)
	}
	return n
}

// A list of a dozen items, enough for the warnings to list the namespace's Services
// and for the items to be written many at a time: after a change of one item, the
// removal of one and the addition of another, only those three objects are touched
// (the changed one is the only one updated; every other item keeps its
// resourceVersion), and refresh and preview are quiet.
func TestUserProgramsLargeEndpointsList(t *testing.T) {
	t.Parallel()
	// Its own control plane, with every controller, so that the API server's request
	// counter counts this test's writes only.
	cp := controlplane.StartTWith(t, controlplane.Options{AllControllers: true})
	ns := cp.Namespace(t, "e2e")
	cs := cp.Clientset()
	s := newStack(t, cp.KubeconfigPath())
	names := []string{"svc-07", "svc-02", "svc-11", "svc-05", "svc-00", "svc-09", "svc-03", "svc-10", "svc-01", "svc-08",
		"svc-06", "svc-04"}
	s.init(largeListProgram(ns, names, ""))
	s.upWithPreview()
	versions := map[string]string{}
	list := func(step string) []corev1.Endpoints {
		l, err := cs.CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return l.Items
	}
	for _, e := range list("after the first up") {
		versions[e.Name] = e.ResourceVersion
	}
	if len(versions) != len(names)+1 {
		t.Fatalf("after the first up: %d Endpoints, want %d", len(versions), len(names)+1)
	}
	s.expectQuiet()

	// svc-05 changes its port, svc-11 goes, svc-12 comes.
	next := append(slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == "svc-11" }), "svc-12")
	s.WriteProject(largeListProgram(ns, next, "svc-05"))
	before := endpointsPuts(t, cp)
	s.upWithPreview()
	step := "after changing svc-05, dropping svc-11, adding svc-12"
	// An update that changes nothing leaves the resourceVersion as it was, so the
	// writes are counted at the API server: svc-05's, in the preview (a dry run) and
	// in the update, and no other.
	if puts := endpointsPuts(t, cp) - before; puts != 2 {
		t.Errorf("%s: %d updates of Endpoints, want 2 (svc-05's dry run and write)", step, puts)
	}
	for _, e := range list(step) {
		was, existed := versions[e.Name]
		switch {
		case e.Name == "svc-05":
			if len(e.Subsets) == 0 || len(e.Subsets[0].Ports) == 0 || e.Subsets[0].Ports[0].Port != 8080 {
				t.Errorf("%s: svc-05 has subsets %v, want port 8080", step, e.Subsets)
			}
		case e.Name == "svc-12":
			if existed {
				t.Errorf("%s: svc-12 existed before it was added", step)
			}
		case e.Name == "svc-11":
			t.Errorf("%s: svc-11 still exists", step)
		case !existed:
			t.Errorf("%s: unexpected Endpoints %s", step, e.Name)
		case e.ResourceVersion != was:
			t.Errorf("%s: %s changed (resourceVersion %s, was %s) though its inputs did not", step, e.Name,
				e.ResourceVersion, was)
		}
	}
	s.expectQuiet()
	s.destroyWithPreview()
	wantNoObjects(t, cs, ns, "after destroy")
}
