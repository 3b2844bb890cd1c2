package differential_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// The generated corpus: valid objects mutated by a seeded random generator, so the
// same cases come back on every run. Each case applies one to three mutations, each
// drawing from pools of valid and invalid values; some string values are made
// secret (which must not change any verdict).

const (
	// generatorSeed fixes the generated corpus.
	generatorSeed = 20251122
	// generatedPerKind is the number of generated cases of each kind.
	generatedPerKind = 200
)

// Value pools: valid and invalid on purpose.
var (
	dnsLabels = []string{"a", "web-0", "0", strings.Repeat("x", 63), "", "A", "web_0", "-a", "a-", "a.b",
		strings.Repeat("x", 64), "ünicode"}
	subdomains = []string{"node-1", "a.b.c", strings.Repeat(strings.Repeat("n", 62)+".", 4) + "n", "Node", "a..b", "",
		"a_b", strings.Repeat(strings.Repeat("n", 62)+".", 4) + "nn", ".a", "a."}
	ipv4s = []string{"10.0.0.1", "10.0.0.2", "192.0.2.7", "010.0.0.1", "::ffff:10.0.0.3", "127.0.0.1", "169.254.1.1",
		"224.0.0.5", "224.0.1.5", "0.0.0.0", "255.255.255.255", "10.0.0", "300.0.0.1", "", "2001:db8::1"}
	ipv6s = []string{"2001:db8::1", "2001:db8::2", "fd00::7", "2001:DB8::1", "2001:db8:0::1", "::1", "fe80::9",
		"ff02::2", "ff0e::1", "::", "::ffff:10.0.0.1", "10.0.0.1", "2001:db8::g", ""}
	fqdns = []string{"example.com", "web.example.com.", "a.b", "example", "Example.com", "a_b.example", "", "-a.example",
		strings.Repeat("a", 64) + ".example", "10.0.0.1"}
	labelKeys = []string{"app", "app.kubernetes.io/name", "example.com/x", "bad key", "a/b/c", "Example.com/x", "",
		"-a", strings.Repeat("k", 64), "example.com/" + strings.Repeat("k", 63)}
	labelValues = []string{"web", "", "V_1.x", "a b", "a-", strings.Repeat("v", 63), strings.Repeat("v", 64)}
	finalizers  = []string{"example.com/f", "kubernetes", "orphan", "foregroundDeletion", "custom", "Example.com/f", ""}
	appProtos   = []string{"http", "HTTP", "kubernetes.io/h2c", "kubernetes.io/wss", "kubernetes.io/foo", "Bad Proto",
		"example.com/p", "example.com/", "my_proto", "a/b/c", ""}
	protocols   = []any{"TCP", "UDP", "SCTP", "tcp", "", 6}
	portNumbers = []any{80, 1, 65535, 0, -1, 65536, 2147483647, 2147483648.0, 80.5, "80"}
	zones       = []string{"zone-a", "zone-b", "Zone_A", "", "us east", strings.Repeat("z", 64)}
	wrongTypes  = []any{7, true, "x", []any{"x"}, map[string]any{"x": "y"}}
	typos       = []string{"adresses", "hostName", "node_name", "Zone", "protocols", "extra"}
	ownerRefs   = []any{
		map[string]any{"apiVersion": "v1", "kind": "Service", "name": "web", "uid": "1", "controller": true},
		map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": "2", "controller": true},
		map[string]any{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "3"},
		map[string]any{"apiVersion": "apps/", "kind": "Deployment", "name": "d", "uid": "4"},
		map[string]any{"apiVersion": "v1", "kind": "Service", "name": "", "uid": "5"},
		map[string]any{"apiVersion": "v1", "kind": "Service", "name": "web"},
		map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "uid": "6", "blockOwnerDeletion": true},
	}
	serverOwned = []string{"uid", "resourceVersion", "creationTimestamp", "generation", "selfLink", "managedFields",
		"clusterName", "deletionTimestamp", "deletionGracePeriodSeconds"}
)

const (
	sliceBaseIPv4 = `{"metadata":{"name":"gen-slice","labels":{"app":"web"}},"addressType":"IPv4","endpoints":[` +
		`{"addresses":["10.0.0.1"],"conditions":{"ready":true},"hostname":"web-0","nodeName":"node-1","zone":"zone-a",` +
		`"targetRef":{"kind":"Pod","name":"web-0","namespace":"default"},"hints":{"forZones":[{"name":"zone-a"}]}},` +
		`{"addresses":["10.0.0.2","10.0.0.3"],"conditions":{"ready":false,"serving":true,"terminating":true}}],` +
		`"ports":[{"name":"http","port":80,"protocol":"TCP","appProtocol":"http"},{"name":"https","port":443}]}`
	sliceBaseIPv6 = `{"metadata":{"name":"gen-slice6"},"addressType":"IPv6","endpoints":[` +
		`{"addresses":["2001:db8::1"],"hostname":"a"},{"addresses":["fd00::1"],"nodeName":"node-2"}],` +
		`"ports":[{"name":"dns","port":53,"protocol":"UDP"}]}`
	sliceBaseFQDN = `{"metadata":{"name":"gen-slicef","namespace":"default"},"addressType":"FQDN",` +
		`"endpoints":[{"addresses":["web.example.com"]}],"ports":[{"port":443}]}`
	listBase = `{"items":[` +
		`{"metadata":{"name":"gen-a","labels":{"app":"a"}},"subsets":[` +
		`{"addresses":[{"ip":"10.0.0.1","hostname":"a-0","nodeName":"node-1"}],"notReadyAddresses":[{"ip":"10.0.0.2"}],` +
		`"ports":[{"name":"http","port":80},{"name":"metrics","port":9090,"protocol":"TCP","appProtocol":"http"}]}]},` +
		`{"metadata":{"name":"gen-b","namespace":"default"},"subsets":[` +
		`{"addresses":[{"ip":"2001:db8::5","targetRef":{"kind":"Pod","name":"b-0"}}],"ports":[{"port":53,"protocol":"UDP"}]},` +
		`{"notReadyAddresses":[{"ip":"10.0.1.1"}]}]}]}`
)

// gen mutates plain JSON values.
type gen struct {
	r *rand.Rand
}

func pick[T any](g *gen, pool []T) T { return pool[g.r.IntN(len(pool))] }

// at returns a random element of the list at obj[key], or nil.
func (g *gen) at(obj map[string]any, key string) map[string]any {
	list, _ := obj[key].([]any)
	if len(list) == 0 {
		return nil
	}
	m, _ := list[g.r.IntN(len(list))].(map[string]any)
	return m
}

// meta returns obj's metadata map, creating it.
func meta(obj map[string]any) map[string]any {
	m, ok := obj["metadata"].(map[string]any)
	if !ok {
		m = map[string]any{}
		obj["metadata"] = m
	}
	return m
}

func sub(obj map[string]any, key string) map[string]any {
	m, ok := obj[key].(map[string]any)
	if !ok {
		m = map[string]any{}
		obj[key] = m
	}
	return m
}

// mutation changes obj and describes what it did.
type mutation func(g *gen, obj map[string]any) string

// metadataMutations apply to the metadata of a slice or an Endpoints item.
var metadataMutations = []mutation{
	func(g *gen, obj map[string]any) string {
		v := pick(g, subdomains)
		if v == "" {
			v = "x"
		}
		meta(obj)["name"] = v
		return "name=" + q(v)
	},
	func(g *gen, obj map[string]any) string {
		v := pick(g, append(dnsLabels, "web-"))
		meta(obj)["generateName"] = v
		return "generateName=" + q(v)
	},
	func(g *gen, obj map[string]any) string {
		v := pick(g, []string{"default", "", "kube-system", otherNamespace, "Bad_NS", "a.b"})
		meta(obj)["namespace"] = v
		return "namespace=" + q(v)
	},
	func(g *gen, obj map[string]any) string {
		k, v := pick(g, labelKeys), pick(g, labelValues)
		sub(meta(obj), "labels")[k] = v
		return fmt.Sprintf("labels[%q]=%q", k, v)
	},
	func(g *gen, obj map[string]any) string {
		k := pick(g, append(labelKeys, "Example.COM/Key"))
		sub(meta(obj), "annotations")[k] = "any value"
		return fmt.Sprintf("annotations[%q]", k)
	},
	func(g *gen, obj map[string]any) string {
		f := []any{pick(g, finalizers), pick(g, finalizers)}[:1+g.r.IntN(2)]
		meta(obj)["finalizers"] = f
		return fmt.Sprintf("finalizers=%q", f)
	},
	func(g *gen, obj map[string]any) string {
		refs := []any{deepCopy(pick(g, ownerRefs))}
		if g.r.IntN(2) == 0 {
			refs = append(refs, deepCopy(pick(g, ownerRefs)))
		}
		meta(obj)["ownerReferences"] = refs
		return fmt.Sprintf("ownerReferences=%v", refs)
	},
	func(g *gen, obj map[string]any) string {
		k := pick(g, serverOwned)
		meta(obj)[k] = pick(g, []any{"x", 3, "2024-01-01T00:00:00Z"})
		return "server-owned " + k
	},
	func(g *gen, obj map[string]any) string {
		k := pick(g, []string{"lables", "Name", "owner"})
		meta(obj)[k] = "x"
		return "unknown metadata." + k
	},
}

// sliceMutations apply to an EndpointSlice.
var sliceMutations = []mutation{
	func(g *gen, obj map[string]any) string {
		v := pick(g, []any{"IPv4", "IPv6", "FQDN", "ipv6", "", 6})
		obj["addressType"] = v
		return fmt.Sprintf("addressType=%v", v)
	},
	func(g *gen, obj map[string]any) string {
		ep := g.at(obj, "endpoints")
		if ep == nil {
			return "no endpoint"
		}
		pool := append(append(append([]string{}, ipv4s...), ipv6s...), fqdns...)
		switch obj["addressType"] {
		case "IPv4":
			pool = ipv4s
		case "IPv6":
			pool = ipv6s
		case "FQDN":
			pool = fqdns
		}
		v := pick(g, pool)
		addrs, _ := ep["addresses"].([]any)
		if len(addrs) > 0 && g.r.IntN(2) == 0 {
			addrs[g.r.IntN(len(addrs))] = v
		} else {
			ep["addresses"] = append(addrs, v)
		}
		return "address " + q(v)
	},
	func(g *gen, obj map[string]any) string {
		ep := g.at(obj, "endpoints")
		if ep == nil {
			return "no endpoint"
		}
		n := pick(g, []int{0, 1, 99, 100, 101})
		addrs := make([]any, n)
		for i := range addrs {
			switch obj["addressType"] {
			case "IPv6":
				addrs[i] = fmt.Sprintf("2001:db8::%x", i+1)
			case "FQDN":
				addrs[i] = fmt.Sprintf("h%d.example.com", i)
			default:
				addrs[i] = fmt.Sprintf("10.9.%d.%d", i/200, i%200+1)
			}
		}
		ep["addresses"] = addrs
		return fmt.Sprintf("%d addresses", n)
	},
	func(g *gen, obj map[string]any) string {
		n := pick(g, []int{0, 999, 1000, 1001})
		eps := make([]any, n)
		for i := range eps {
			eps[i] = map[string]any{"addresses": []any{map[string]string{"IPv6": "2001:db8::1", "FQDN": "a.example"}[fmt.Sprint(obj["addressType"])]}}
			if obj["addressType"] != "IPv6" && obj["addressType"] != "FQDN" {
				eps[i] = map[string]any{"addresses": []any{"10.8.0.1"}}
			}
		}
		obj["endpoints"] = eps
		return fmt.Sprintf("%d endpoints", n)
	},
	func(g *gen, obj map[string]any) string {
		ep := g.at(obj, "endpoints")
		if ep == nil {
			return "no endpoint"
		}
		v := pick(g, dnsLabels)
		ep["hostname"] = v
		return "hostname=" + q(v)
	},
	func(g *gen, obj map[string]any) string {
		ep := g.at(obj, "endpoints")
		if ep == nil {
			return "no endpoint"
		}
		v := pick(g, subdomains)
		ep["nodeName"] = v
		return "nodeName=" + q(v)
	},
	func(g *gen, obj map[string]any) string {
		ep := g.at(obj, "endpoints")
		if ep == nil {
			return "no endpoint"
		}
		var zs []any
		for range pick(g, []int{0, 1, 2, 8, 9}) {
			zs = append(zs, map[string]any{"name": pick(g, zones)})
		}
		ep["hints"] = map[string]any{"forZones": zs}
		return fmt.Sprintf("forZones=%v", zs)
	},
	func(g *gen, obj map[string]any) string {
		ep := g.at(obj, "endpoints")
		if ep == nil {
			return "no endpoint"
		}
		k := pick(g, []string{"ready", "serving", "terminating"})
		v := pick(g, []any{true, false, "true", nil})
		sub(ep, "conditions")[k] = v
		return fmt.Sprintf("conditions.%s=%v", k, v)
	},
	func(g *gen, obj map[string]any) string {
		ep := g.at(obj, "endpoints")
		if ep == nil {
			return "no endpoint"
		}
		ep["deprecatedTopology"] = map[string]any{pick(g, labelKeys): pick(g, labelValues)}
		return "deprecatedTopology"
	},
	func(g *gen, obj map[string]any) string {
		ep := g.at(obj, "endpoints")
		if ep == nil {
			return "no endpoint"
		}
		k := pick(g, []string{"addresses", "hostname", "zone", "conditions", "targetRef", "hints"})
		v := deepCopy(pick(g, wrongTypes))
		ep[k] = v
		return fmt.Sprintf("endpoint %s=%v", k, v)
	},
	func(g *gen, obj map[string]any) string {
		ep := g.at(obj, "endpoints")
		if ep == nil {
			return "no endpoint"
		}
		k := pick(g, typos)
		ep[k] = "x"
		return "unknown endpoint property " + k
	},
	func(g *gen, obj map[string]any) string {
		p := g.at(obj, "ports")
		if p == nil {
			return "no port"
		}
		v := pick(g, append(dnsLabels, "http"))
		if g.r.IntN(4) == 0 {
			delete(p, "name")
			return "port name removed"
		}
		p["name"] = v
		return "port name=" + q(v)
	},
	func(g *gen, obj map[string]any) string {
		p := g.at(obj, "ports")
		if p == nil {
			return "no port"
		}
		v := pick(g, portNumbers)
		p["port"] = v
		return fmt.Sprintf("port=%v", v)
	},
	func(g *gen, obj map[string]any) string {
		p := g.at(obj, "ports")
		if p == nil {
			return "no port"
		}
		v := pick(g, protocols)
		p["protocol"] = v
		return fmt.Sprintf("protocol=%v", v)
	},
	func(g *gen, obj map[string]any) string {
		p := g.at(obj, "ports")
		if p == nil {
			return "no port"
		}
		v := pick(g, appProtos)
		p["appProtocol"] = v
		return "appProtocol=" + q(v)
	},
	func(g *gen, obj map[string]any) string {
		ports, _ := obj["ports"].([]any)
		n := pick(g, []int{0, 100, 101})
		for i := range n {
			ports = append(ports, map[string]any{"name": fmt.Sprintf("g%d", i), "port": 8000 + i})
		}
		if g.r.IntN(3) == 0 {
			ports = append(ports, map[string]any{"port": 1})
		}
		obj["ports"] = ports
		return fmt.Sprintf("%d more ports", n)
	},
	func(g *gen, obj map[string]any) string {
		k := pick(g, []string{"adressType", "endpoint", "Ports", "spec"})
		obj[k] = "x"
		return "unknown property " + k
	},
}

// listMutations apply to an EndpointsList.
var listMutations = []mutation{
	func(g *gen, obj map[string]any) string {
		a := g.address(obj)
		if a == nil {
			return "no address"
		}
		v := pick(g, append(append([]string{}, ipv4s...), ipv6s...))
		a["ip"] = v
		return "ip=" + q(v)
	},
	func(g *gen, obj map[string]any) string {
		a := g.address(obj)
		if a == nil {
			return "no address"
		}
		v := pick(g, dnsLabels)
		a["hostname"] = v
		return "hostname=" + q(v)
	},
	func(g *gen, obj map[string]any) string {
		a := g.address(obj)
		if a == nil {
			return "no address"
		}
		v := pick(g, subdomains)
		a["nodeName"] = v
		return "nodeName=" + q(v)
	},
	func(g *gen, obj map[string]any) string {
		a := g.address(obj)
		if a == nil {
			return "no address"
		}
		k := pick(g, []string{"ip", "hostname", "targetRef", "zone"})
		v := deepCopy(pick(g, wrongTypes))
		a[k] = v
		return fmt.Sprintf("address %s=%v", k, v)
	},
	func(g *gen, obj map[string]any) string {
		ss := g.subset(obj)
		if ss == nil {
			return "no subset"
		}
		k := pick(g, []string{"addresses", "notReadyAddresses", "ports"})
		if g.r.IntN(2) == 0 {
			delete(ss, k)
			return "subset " + k + " removed"
		}
		ss[k] = []any{}
		return "subset " + k + " emptied"
	},
	func(g *gen, obj map[string]any) string {
		ss := g.subset(obj)
		if ss == nil {
			return "no subset"
		}
		ready, _ := ss["addresses"].([]any)
		if len(ready) == 0 {
			return "no ready address"
		}
		notReady, _ := ss["notReadyAddresses"].([]any)
		ss["notReadyAddresses"] = append(notReady, deepCopy(ready[0]))
		return "ready address also not ready"
	},
	func(g *gen, obj map[string]any) string {
		p := g.port(obj)
		if p == nil {
			return "no port"
		}
		if g.r.IntN(3) == 0 {
			delete(p, "name")
			return "port name removed"
		}
		v := pick(g, append(dnsLabels, "http"))
		p["name"] = v
		return "port name=" + q(v)
	},
	func(g *gen, obj map[string]any) string {
		p := g.port(obj)
		if p == nil {
			return "no port"
		}
		v := pick(g, portNumbers)
		p["port"] = v
		return fmt.Sprintf("port=%v", v)
	},
	func(g *gen, obj map[string]any) string {
		p := g.port(obj)
		if p == nil {
			return "no port"
		}
		v := pick(g, protocols)
		p["protocol"] = v
		return fmt.Sprintf("protocol=%v", v)
	},
	func(g *gen, obj map[string]any) string {
		p := g.port(obj)
		if p == nil {
			return "no port"
		}
		v := pick(g, appProtos)
		p["appProtocol"] = v
		return "appProtocol=" + q(v)
	},
	func(g *gen, obj map[string]any) string {
		ss := g.subset(obj)
		if ss == nil {
			return "no subset"
		}
		ports, _ := ss["ports"].([]any)
		p := map[string]any{"port": 7000 + g.r.IntN(100)}
		if g.r.IntN(2) == 0 {
			p["name"] = pick(g, []string{"http", "extra", "metrics"})
		}
		ss["ports"] = append(ports, p)
		return fmt.Sprintf("port added %v", p)
	},
	func(g *gen, obj map[string]any) string {
		items, _ := obj["items"].([]any)
		if len(items) < 2 {
			return "one item"
		}
		a, b := items[0].(map[string]any), items[1].(map[string]any)
		meta(b)["name"] = meta(a)["name"]
		if g.r.IntN(2) == 0 {
			meta(b)["namespace"] = pick(g, []string{"", "default", otherNamespace})
		}
		return "second item named like the first"
	},
	func(g *gen, obj map[string]any) string {
		items, _ := obj["items"].([]any)
		k := pick(g, typos)
		target := g.address(obj)
		if target == nil || g.r.IntN(2) == 0 {
			target = items[g.r.IntN(len(items))].(map[string]any)
		}
		target[k] = "x"
		return "unknown property " + k
	},
	func(g *gen, obj map[string]any) string {
		items, _ := obj["items"].([]any)
		item := items[g.r.IntN(len(items))].(map[string]any)
		return "item " + pick(g, metadataMutations)(g, item)
	},
}

// address returns a random address of a random subset of a random item.
func (g *gen) address(list map[string]any) map[string]any {
	ss := g.subset(list)
	if ss == nil {
		return nil
	}
	key := "addresses"
	if g.r.IntN(3) == 0 {
		key = "notReadyAddresses"
	}
	if a := g.at(ss, key); a != nil {
		return a
	}
	return g.at(ss, "addresses")
}

func (g *gen) subset(list map[string]any) map[string]any {
	item := g.at(list, "items")
	if item == nil {
		return nil
	}
	return g.at(item, "subsets")
}

func (g *gen) port(list map[string]any) map[string]any {
	ss := g.subset(list)
	if ss == nil {
		return nil
	}
	return g.at(ss, "ports")
}

// secretize makes some string leaves secret.
func (g *gen) secretize(v property.Value) property.Value {
	switch {
	case v.IsString():
		if g.r.IntN(8) == 0 {
			return v.WithSecret(true)
		}
	case v.IsArray():
		elems := v.AsArray().AsSlice()
		for i, e := range elems {
			elems[i] = g.secretize(e)
		}
		return property.New(elems)
	case v.IsMap():
		m := v.AsMap().AsMap()
		for k, e := range m {
			m[k] = g.secretize(e)
		}
		return property.New(m)
	}
	return v
}

func generatedCases(tb testing.TB) []testCase {
	g := &gen{r: rand.New(rand.NewPCG(generatorSeed, generatorSeed))} //nolint:gosec // a fixed seed, on purpose: the corpus must not change between runs
	var cases []testCase
	sliceBases := []string{sliceBaseIPv4, sliceBaseIPv6, sliceBaseFQDN}
	for i := range generatedPerKind {
		obj := decodeJSON(tb, pick(g, sliceBases))
		var did []string
		for range 1 + g.r.IntN(3) {
			if g.r.IntN(4) == 0 {
				did = append(did, pick(g, metadataMutations)(g, obj))
			} else {
				did = append(did, pick(g, sliceMutations)(g, obj))
			}
		}
		ensureName(obj, "gen-slice")
		cases = append(cases, testCase{
			name:   fmt.Sprintf("generated slice %d: %s", i, strings.Join(did, ", ")),
			kind:   sliceKind,
			inputs: g.secretize(fromPlain(obj)).AsMap(),
		})
	}
	for i := range generatedPerKind {
		obj := decodeJSON(tb, listBase)
		var did []string
		for range 1 + g.r.IntN(3) {
			did = append(did, pick(g, listMutations)(g, obj))
		}
		cases = append(cases, testCase{
			name:   fmt.Sprintf("generated list %d: %s", i, strings.Join(did, ", ")),
			kind:   listKind,
			inputs: g.secretize(fromPlain(obj)).AsMap(),
		})
	}
	return cases
}

const (
	// namingSeed fixes the generated naming corpus.
	namingSeed = 20260412
	// namingSlices and namingLists are the numbers of generated naming cases.
	namingSlices = 120
	namingLists  = 60
)

// Pools for the generated naming corpus.
var (
	// generatedVariants are the provider configurations generated cases use: those
	// whose default namespace exists.
	generatedVariants = []variant{plainConfig, configNamespace, contextNamespace, configOverContext}
	// namingNamespaces are the namespaces generated objects set (nil: none); every
	// valid one exists.
	namingNamespaces = []any{nil, nil, "", "default", otherNamespace, contextNamespaceName, "Bad_NS", "a.b",
		strings.Repeat("s", 64), 7}
	// generateNames are values of metadata.generateName, valid and invalid.
	generateNames = []string{"web-", "web", "a.b-", "0-", "Web-", "web_", "x_-", "-", "-web-", "web.", "a..b-",
		strings.Repeat("g", 58) + "-", strings.Repeat("g", 253), strings.Repeat("g", 254)}
	// logicalChars are the characters random resource names are made of.
	logicalChars = []rune("abcxyzABCXYZ0189-_. /:ü")
)

// logicalName returns a resource name: one of the interesting ones, or a random one.
func (g *gen) logicalName() string {
	if g.r.IntN(2) == 0 {
		return pick(g, autonameLogicalNames)
	}
	n := pick(g, []int{1, 2, 5, 12, 30, 63, 64, 200, 244, 245, 260, 400})
	name := make([]rune, n)
	for i := range name {
		name[i] = pick(g, logicalChars)
	}
	if strings.TrimSpace(string(name)) == "" || strings.Contains(string(name), "::") {
		return "web"
	}
	return string(name)
}

// nameObject gives obj's metadata one of: no name (an autoname), generateName, a
// name; and sometimes a namespace. It describes what it did.
func (g *gen) nameObject(obj map[string]any, autoname bool) []string {
	m := meta(obj)
	delete(m, "name")
	var did []string
	switch r := g.r.IntN(4); {
	case r < 2 && autoname:
		did = append(did, "autonamed")
	case r < 3:
		v := pick(g, generateNames)
		m["generateName"] = v
		did = append(did, "generateName="+q(short(v)))
	default:
		v := pick(g, subdomains)
		m["name"] = v
		did = append(did, "name="+q(short(v)))
	}
	if ns := pick(g, namingNamespaces); ns != nil {
		m["namespace"] = ns
		did = append(did, fmt.Sprintf("namespace=%v", ns))
	} else {
		delete(m, "namespace")
		did = append(did, "no namespace")
	}
	return did
}

// generatedNameCases are generated cases about names and namespaces: slices that are
// autonamed, named by generateName or by name, for random resource names, in given or
// default namespaces under the provider configurations whose default namespace
// exists, with at times another mutation; and lists whose items are named and placed
// likewise.
func generatedNameCases(tb testing.TB) []testCase {
	g := &gen{r: rand.New(rand.NewPCG(namingSeed, namingSeed))} //nolint:gosec // a fixed seed, on purpose: the corpus must not change between runs
	var cases []testCase
	sliceBases := []string{sliceBaseIPv4, sliceBaseIPv6, sliceBaseFQDN}
	for i := range namingSlices {
		obj := decodeJSON(tb, pick(g, sliceBases))
		did := g.nameObject(obj, true)
		if g.r.IntN(3) == 0 {
			did = append(did, pick(g, sliceMutations)(g, obj))
		}
		v := pick(g, generatedVariants)
		cases = append(cases, testCase{
			name:    fmt.Sprintf("generated naming slice %d: %s", i, strings.Join(did, ", ")),
			kind:    sliceKind,
			inputs:  g.secretize(fromPlain(obj)).AsMap(),
			logical: g.logicalName(),
			variant: v,
		})
	}
	for i := range namingLists {
		obj := decodeJSON(tb, listBase)
		var did []string
		items, _ := obj["items"].([]any)
		for j, item := range items {
			if g.r.IntN(2) == 0 {
				for _, d := range g.nameObject(item.(map[string]any), false) {
					did = append(did, fmt.Sprintf("items[%d] %s", j, d))
				}
			}
		}
		if g.r.IntN(2) == 0 {
			did = append(did, pick(g, listMutations)(g, obj))
		}
		cases = append(cases, testCase{
			name:    fmt.Sprintf("generated naming list %d: %s", i, strings.Join(did, ", ")),
			kind:    listKind,
			inputs:  g.secretize(fromPlain(obj)).AsMap(),
			logical: g.logicalName(),
			variant: pick(g, generatedVariants),
		})
	}
	return cases
}
