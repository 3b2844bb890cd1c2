package lifecycle_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// Seeded generators of valid resource inputs, written the way users write them, for the
// round-trip test (roundtrip_test.go). A program is plain Go data (maps, slices,
// strings, ints and bools, as JSON would decode it): it prints as the JSON a user could
// paste into a YAML program, converts to the property map the engine sends, and decodes
// into the client-go types to be compared with what the API server stores.
//
// Each program draws from its own random stream, derived from the seed, its kind and its
// index, so one program can be regenerated alone (go test -run TestRoundTrip/slice-042).

// program is one generated resource declaration.
type program struct {
	kind    string // "slice" or "list"
	index   int
	logical string // the resource name in the URN
	// nsViaConfig says the namespace comes from the provider's `namespace`
	// configuration; otherwise every object sets metadata.namespace.
	nsViaConfig bool
	inputs      map[string]any
	// autonamed says the slice names neither metadata.name nor generateName.
	autonamed bool
}

func (pr program) name() string { return fmt.Sprintf("%s-%03d", pr.kind, pr.index) }

// props is the program's inputs as the engine sends them.
func (pr program) props() property.Map { return toProperty(pr.inputs).AsMap() }

// json is the program's inputs as indented JSON, for failure messages.
func (pr program) json() string {
	b, err := json.MarshalIndent(pr.inputs, "", "  ")
	if err != nil {
		return fmt.Sprintf("%#v", pr.inputs)
	}
	return string(b)
}

// gen is a program's random source, with the counters that keep its addresses and
// names distinct.
type gen struct {
	r       *rand.Rand
	index   int
	counter int
}

// kindStream separates the random streams of the two kinds.
var kindStream = map[string]uint64{"slice": 1, "list": 2}

func newGen(seed uint64, kind string, index int) *gen {
	// A seeded generator: the programs must be reproducible, not unpredictable.
	r := rand.New(rand.NewPCG(seed, kindStream[kind]<<32|uint64(index))) //nolint:gosec // G404: test data, not secrets
	return &gen{r: r, index: index}
}

func (g *gen) intn(n int) int         { return g.r.IntN(n) }
func (g *gen) int32n(n int32) int32   { return g.r.Int32N(n) }
func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }
func (g *gen) chance(p float64) bool  { return g.r.Float64() < p }
func (g *gen) next() int              { g.counter++; return g.counter }
func pick[T any](g *gen, xs ...T) T   { return xs[g.r.IntN(len(xs))] }
func shuffled[T any](g *gen, xs []T) []T {
	out := slices.Clone(xs)
	g.r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// sample returns n distinct elements of xs in random order.
func sample[T any](g *gen, xs []T, n int) []T { return shuffled(g, xs)[:n] }

// Logical names: every shape Pulumi allows.

var logicalShapes = []string{
	"web", "webSlice", "my_slice", "svc.v2", "1st-slice", "WEB", "My Service", "api/v1",
	"café", "_internal", "x", "Web.Frontend_v2", "a.b.c", "9", "__", "a_.b", "svc.-v2", "..x..", "über.Dienst",
}

func (g *gen) logicalName() string {
	switch n := g.intn(20); {
	case n < 8:
		return pick(g, logicalShapes...)
	case n < 15:
		return g.composedName(g.between(1, 4))
	case n < 18:
		return g.longName(80)
	default:
		return g.longName(300)
	}
}

// composedName joins words of mixed case with separators users put in resource names.
func (g *gen) composedName(words int) string {
	var b strings.Builder
	if g.chance(0.1) {
		b.WriteString("_")
	}
	for i := range words {
		if i > 0 {
			b.WriteString(pick(g, "-", "_", ".", " ", "/", "--", "__", "", "-.", "._", ".."))
		}
		b.WriteString(g.word())
	}
	if g.chance(0.1) {
		b.WriteString(pick(g, "_", "-", " "))
	}
	return b.String()
}

func (g *gen) word() string {
	const lower, upper, digits = "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"
	n := g.between(1, 10)
	b := make([]byte, n)
	for i := range b {
		switch c := g.intn(10); {
		case c < 6:
			b[i] = lower[g.intn(len(lower))]
		case c < 8:
			b[i] = upper[g.intn(len(upper))]
		default:
			b[i] = digits[g.intn(len(digits))]
		}
	}
	return string(b)
}

// longName is a composed name cut to exactly n bytes.
func (g *gen) longName(n int) string {
	s := g.composedName(2)
	for len(s) < n {
		s += pick(g, "-", "_", ".", "") + g.word()
	}
	return s[:n]
}

// autonamePrefix is what an autoname must start with, by the rule the provider
// documents (docs/guides/resources.md, "EndpointSlice"): letters are lowercased; every character other
// than a-z, 0-9, '-' and '.' becomes '-'; each dot-separated part loses its leading and
// trailing '-', and empty parts are dropped, so the name starts and ends with an
// alphanumeric and is a DNS subdomain; it is cut to leave room for '-' and 8 hex
// characters within 253 (244 characters), and trimmed again at the cut. "" when nothing
// of the name is usable.
func autonamePrefix(logical string) string {
	mapped := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '.':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return '-'
	}, logical)
	prefix := trimLabels(mapped)
	if len(prefix) > 253-9 {
		prefix = trimLabels(prefix[:253-9])
	}
	return prefix
}

// trimLabels joins the non-empty dot-separated parts of s, each trimmed of '-'.
func trimLabels(s string) string {
	var kept []string
	for _, part := range strings.Split(s, ".") {
		if part = strings.Trim(part, "-"); part != "" {
			kept = append(kept, part)
		}
	}
	return strings.Join(kept, ".")
}

// Names and values Kubernetes accepts.

func (g *gen) dnsLabel() string {
	return pick(g, "web", "api", "db", "cache", "front", "worker", "a1", "x") + "-" + fmt.Sprint(g.next())
}

// objectName is a fixed metadata.name, unique to the program (the namespace is shared).
func (g *gen) objectName(kind string) string {
	switch g.intn(6) {
	case 0:
		return fmt.Sprintf("%s.%s-%03d", g.dnsLabel(), pick(g, "v2", "prod", "example.com"), g.index)
	case 1:
		// A long name: labels of 63 characters, 253 in all.
		s := fmt.Sprintf("%s-%03d-%d", kind, g.index, g.next())
		for len(s)+2 <= 253 {
			s += "." + strings.Repeat(string(rune('a'+g.intn(26))), min(63, 253-len(s)-1))
		}
		return s
	default:
		return fmt.Sprintf("%s-%s-%03d", kind, g.dnsLabel(), g.index)
	}
}

func (g *gen) labels() map[string]any {
	out := map[string]any{}
	for range g.intn(4) {
		key := pick(g, "app", "tier", "example.com/team", "kubernetes.io/service-name", "version")
		out[key] = pick(g, "web", "backend", "v1.2.3", "", "blue_green", "a-b.c")
	}
	return out
}

func (g *gen) annotations() map[string]any {
	out := map[string]any{}
	for range g.intn(3) {
		key := pick(g, "note", "example.com/owner", "example.com/json", "description")
		out[key] = pick(g, "hello world", `{"a":1}`, "", "ops@example.com", "multi\nline")
	}
	return out
}

// metadata adds labels and annotations, sometimes empty maps, to meta.
func (g *gen) decorate(meta map[string]any) {
	if g.chance(0.35) {
		meta["labels"] = g.labels()
	}
	if g.chance(0.25) {
		meta["annotations"] = g.annotations()
	}
}

// Addresses. Generated addresses come from ranges the drift edits never use.

func (g *gen) ipv4() string {
	n := g.next()
	return fmt.Sprintf("10.%d.%d.%d", g.intn(250), n/250%250, n%250+1)
}

func (g *gen) ipv6() string {
	var b [16]byte
	b[0], b[1] = 0xfd, byte(g.intn(256))
	for i := 2; i < 14; i++ {
		if g.chance(0.5) {
			b[i] = byte(g.intn(256))
		}
	}
	n := g.next()
	b[14], b[15] = byte(n>>8), byte(n)
	return netip.AddrFrom16(b).String() // RFC 5952 canonical form
}

func (g *gen) fqdn() string {
	return fmt.Sprintf("%s.%s", g.dnsLabel(), pick(g, "example.com", "svc.example.org", "a.b.example.net"))
}

func (g *gen) address(addressType string) string {
	switch addressType {
	case "IPv6":
		return g.ipv6()
	case "FQDN":
		return g.fqdn()
	}
	return g.ipv4()
}

// EndpointSlice programs.

func (g *gen) sliceProgram(namespace string) program {
	pr := program{kind: "slice", index: g.index, logical: g.logicalName(), nsViaConfig: g.chance(0.5)}
	addressType := pick(g, "IPv4", "IPv6", "FQDN")
	in := map[string]any{"addressType": addressType}

	// metadata: left out only when the provider's configuration gives the namespace.
	if !pr.nsViaConfig || g.chance(0.7) {
		meta := map[string]any{}
		if !pr.nsViaConfig {
			meta["namespace"] = namespace
		}
		switch g.intn(5) {
		case 0, 1:
			meta["name"] = g.objectName("slice")
		case 2:
			meta["generateName"] = pick(g, "gen-", "web-slice-", "svc.v2-", "x")
		}
		g.decorate(meta)
		in["metadata"] = meta
	}
	_, named := mapAt(in, "metadata")["name"]
	_, generated := mapAt(in, "metadata")["generateName"]
	pr.autonamed = !named && !generated

	switch g.intn(10) {
	case 0: // endpoints left out
	case 1:
		in["endpoints"] = []any{}
	default:
		endpoints := make([]any, g.between(1, 4))
		for i := range endpoints {
			endpoints[i] = g.sliceEndpoint(addressType, namespace)
		}
		in["endpoints"] = endpoints
	}
	switch n := g.intn(10); {
	case n < 2: // ports left out
	case n == 2:
		in["ports"] = []any{}
	default:
		in["ports"] = g.slicePorts(g.between(1, 4))
	}
	pr.inputs = in
	return pr
}

func (g *gen) sliceEndpoint(addressType, namespace string) map[string]any {
	addresses := make([]any, g.between(1, 3))
	for i := range addresses {
		addresses[i] = g.address(addressType)
	}
	e := map[string]any{"addresses": addresses}
	switch n := g.intn(10); {
	case n < 3: // conditions left out
	case n < 5:
		e["conditions"] = map[string]any{}
	default:
		c := map[string]any{}
		for _, k := range []string{"ready", "serving", "terminating"} {
			if g.chance(0.6) {
				c[k] = g.chance(0.5)
			}
		}
		e["conditions"] = c
	}
	if g.chance(0.3) {
		e["hostname"] = g.dnsLabel()
	}
	if g.chance(0.3) {
		e["nodeName"] = pick(g, "node-", "worker-") + fmt.Sprint(g.intn(5)) + pick(g, "", ".cluster.local")
	}
	zones := []string{"us-east-1a", "us-east-1b", "europe-west1-c", "zone_a"}
	if g.chance(0.3) {
		e["zone"] = pick(g, zones...)
	}
	if g.chance(0.3) {
		// Zone hints, node hints (Kubernetes 1.34) or both.
		hints := map[string]any{}
		if g.intn(3) != 0 {
			var forZones []any
			for _, z := range sample(g, zones, g.between(1, 2)) {
				forZones = append(forZones, map[string]any{"name": z})
			}
			hints["forZones"] = forZones
		}
		if g.intn(3) != 0 || len(hints) == 0 {
			var forNodes []any
			for _, i := range sample(g, seq(8), g.between(1, 8)) {
				forNodes = append(forNodes, map[string]any{"name": fmt.Sprintf("node-%d", i)})
			}
			hints["forNodes"] = forNodes
		}
		e["hints"] = hints
	}
	if g.chance(0.3) {
		e["targetRef"] = map[string]any{"kind": "Pod", "name": "pod-" + fmt.Sprint(g.next()), "namespace": namespace}
	}
	return e
}

var portNames = []string{"http", "https", "grpc", "metrics", "dns", "admin", "p-8080", "h2"}

var appProtocols = []string{"http", "https", "grpc", "kubernetes.io/h2c", "kubernetes.io/ws", "example.com/custom"}

// slicePorts are n ports with unique names, at most one of them unnamed.
func (g *gen) slicePorts(n int) []any {
	names := shuffled(g, portNames)
	unnamed := false
	ports := make([]any, n)
	for i := range ports {
		port := map[string]any{}
		switch {
		case !unnamed && g.chance(0.25):
			unnamed = true
			if g.chance(0.3) {
				port["name"] = ""
			}
		default:
			port["name"] = names[i]
		}
		if g.chance(0.6) {
			port["protocol"] = pick(g, "TCP", "UDP", "SCTP")
		}
		if g.chance(0.85) {
			port["port"] = g.between(1, 65535)
		}
		if g.chance(0.3) {
			port["appProtocol"] = pick(g, appProtocols...)
		}
		ports[i] = port
	}
	return ports
}

// EndpointsList programs.

func (g *gen) listProgram(namespace string) program {
	pr := program{kind: "list", index: g.index, logical: g.logicalName(), nsViaConfig: g.chance(0.5)}
	items := make([]any, g.between(1, 4))
	for i := range items {
		meta := map[string]any{"name": g.itemName(i)}
		if g.chance(0.1) {
			// The provider picks the name once and keeps it (docs/guides/resources.md, "EndpointsList").
			meta = map[string]any{"generateName": fmt.Sprintf("list-%03d-%d-", g.index, i)}
		}
		if !pr.nsViaConfig {
			meta["namespace"] = namespace
		}
		g.decorate(meta)
		item := map[string]any{"metadata": meta}
		switch g.intn(10) {
		case 0: // subsets left out
		case 1:
			item["subsets"] = []any{}
		default:
			item["subsets"] = g.subsets(g.between(1, 3), namespace)
		}
		items[i] = item
	}
	pr.inputs = map[string]any{"items": items}
	return pr
}

func (g *gen) itemName(i int) string {
	base := fmt.Sprintf("list-%03d-%d-%s", g.index, i, pick(g, "web", "db", "api"))
	if g.chance(0.2) {
		base += "." + pick(g, "v2", "prod")
	}
	return base
}

// subsets are n subsets drawn from one pool of addresses and one of ports, so that the
// same address always has the same hostname, node and target, and the same port name
// always the same port: the API server repacks subsets by address and port (merging
// subsets with the same ports, sorting addresses and ports), and the pools make what it
// stores mean exactly what the program says.
func (g *gen) subsets(n int, namespace string) []any {
	addrs := make([]map[string]any, g.between(1, 5))
	for i := range addrs {
		a := map[string]any{"ip": pick(g, g.ipv4, g.ipv4, g.ipv6)()}
		switch n := g.intn(20); {
		case n < 6:
			a["hostname"] = g.dnsLabel()
		case n == 6:
			a["hostname"] = "" // the API type leaves an empty hostname out
		}
		if g.chance(0.25) {
			a["nodeName"] = "node-" + fmt.Sprint(g.intn(5))
		}
		if g.chance(0.25) {
			ref := map[string]any{"kind": "Pod", "name": "pod-" + fmt.Sprint(g.next()), "namespace": namespace}
			if g.chance(0.3) {
				ref["uid"] = fmt.Sprintf("%08x-0000-4000-8000-%012x", g.r.Uint32(), g.r.Uint64()&0xffffffffffff)
			}
			a["targetRef"] = ref
		}
		addrs[i] = a
	}
	var ports []map[string]any
	if g.chance(0.5) {
		// One port, named or not.
		port := map[string]any{"port": g.between(1, 65535)}
		switch n := g.intn(10); {
		case n < 6:
			port["name"] = pick(g, portNames...)
		case n == 6:
			port["name"] = "" // the API type leaves an empty name out
		}
		ports = append(ports, port)
	} else {
		for _, name := range sample(g, portNames, g.between(2, 3)) {
			ports = append(ports, map[string]any{"name": name, "port": g.between(1, 65535)})
		}
	}
	for _, port := range ports {
		if g.chance(0.5) {
			port["protocol"] = pick(g, "TCP", "UDP", "SCTP")
		}
		if g.chance(0.3) {
			port["appProtocol"] = pick(g, appProtocols...)
		}
	}

	// ready[address][port] is the readiness already given to an address for a port
	// (-1 for a subset without ports): a program never says both.
	ready := map[int]map[int]bool{}
	var out []any
	for len(out) < n {
		if len(out) > 0 && g.chance(0.3) {
			// The same subset again, in another order: the server merges them.
			prev := out[g.intn(len(out))].(map[string]any)
			again := map[string]any{}
			for k, v := range prev {
				if l, ok := v.([]any); ok {
					v = shuffled(g, l)
				}
				again[k] = v
			}
			out = append(out, again)
			continue
		}
		subset := map[string]any{}
		portIdx := []int{-1}
		switch k := g.intn(10); {
		case k < 2: // ports left out
		case k == 2:
			subset["ports"] = []any{}
		default:
			portIdx = sample(g, seq(len(ports)), g.between(1, len(ports)))
			var ps []any
			for _, i := range portIdx {
				ps = append(ps, ports[i])
			}
			subset["ports"] = ps
		}
		var readyAddrs, notReadyAddrs []any
		for _, ai := range sample(g, seq(len(addrs)), g.between(1, len(addrs))) {
			given := map[bool]bool{}
			for _, pi := range portIdx {
				if r, seen := ready[ai][pi]; seen {
					given[r] = true
				}
			}
			var want bool
			switch {
			case len(given) == 2:
				continue // ready for one of the ports, not ready for another: leave it out
			case len(given) == 1:
				want = given[true]
			default:
				want = len(readyAddrs) == 0 || g.chance(0.7)
			}
			if ready[ai] == nil {
				ready[ai] = map[int]bool{}
			}
			for _, pi := range portIdx {
				ready[ai][pi] = want
			}
			if want {
				readyAddrs = append(readyAddrs, addrs[ai])
			} else {
				notReadyAddrs = append(notReadyAddrs, addrs[ai])
			}
		}
		if len(readyAddrs) == 0 && len(notReadyAddrs) == 0 {
			continue
		}
		if len(readyAddrs) > 0 {
			subset["addresses"] = readyAddrs
		}
		if len(notReadyAddrs) > 0 {
			subset["notReadyAddresses"] = notReadyAddrs
		}
		out = append(out, subset)
	}
	return out
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// Conversions.

func mapAt(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

// toProperty converts plain data to a property value.
func toProperty(x any) property.Value {
	switch v := x.(type) {
	case nil:
		return property.New(property.Null)
	case string:
		return property.New(v)
	case bool:
		return property.New(v)
	case int:
		return property.New(float64(v))
	case float64:
		return property.New(v)
	case []any:
		arr := make([]property.Value, len(v))
		for i, e := range v {
			arr[i] = toProperty(e)
		}
		return property.New(arr)
	case []map[string]any:
		arr := make([]property.Value, len(v))
		for i, e := range v {
			arr[i] = toProperty(e)
		}
		return property.New(arr)
	case map[string]any:
		m := make(map[string]property.Value, len(v))
		for k, e := range v {
			m[k] = toProperty(e)
		}
		return property.New(m)
	}
	panic(fmt.Sprintf("toProperty: unsupported %T", x))
}
