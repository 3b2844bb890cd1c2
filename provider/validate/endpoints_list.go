package validate

import (
	"strconv"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	netutils "k8s.io/utils/net"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// EndpointsList rules. The list itself is not a Kubernetes object: each item is a v1
// Endpoints object, checked as kube-apiserver validates Endpoints on create
// (ValidateEndpointsCreate; where the rules differ by minor, minors.go decides), and no two items may name the same object.

const (
	endpointsListResource = spec.EndpointsListToken
	endpointsType         = spec.EndpointsTypeToken
	coreEndpointPortType  = "endpoints:core/v1:EndpointPort"
)

// DefaultNamespace is the namespace of an object that names none, when neither the
// provider's settings nor the kubeconfig's context name one: Kubernetes' own default.
const DefaultNamespace = "default"

// EndpointsList validates the inputs of an endpoints:core/v1:EndpointsList resource
// for the server they will be written to (nil: Newest), as the store writes each item
// (written: what every write adds), and returns them normalized.
// Items without metadata.namespace are taken to be in
// namespace, the provider's default namespace ("" means "default"), when checking that
// no two items name the same object.
//
// An empty items list is valid: the resource then manages no objects.
func EndpointsList(inputs property.Map, namespace string, srv Server, written Written) Result {
	if namespace == "" {
		namespace = DefaultNamespace
	}
	c := &checker{server: newServer(srv), written: written}
	w := walker{checker: c, pkg: spec.MustLoad()}
	normalized := w.resource(endpointsListResource, inputs)

	items, _ := rootNode(normalized).get("items").items()
	type identity struct{ namespace, name string }
	type seenItem struct {
		index  int
		secret bool
	}
	seen := map[identity]seenItem{}
	for i, item := range items {
		meta := item.get("metadata")
		c.objectMeta(meta)
		if subsets, ok := item.get("subsets").items(); ok {
			for _, ss := range subsets {
				c.endpointSubset(ss)
			}
		}

		nameNode, nsNode := meta.get("name"), meta.get("namespace")
		if nameNode.absent() && !meta.unknown() && (item.v.IsMap() || item.absent()) {
			if g, _ := meta.get("generateName").str(); g == "" && !meta.get("generateName").unknown() {
				c.reject(nameNode.path, "required: an item's name is its identity in the set; set metadata.name, "+
					"or metadata.generateName to have the provider pick a name once and keep it")
			}
		}
		name, ok := nameNode.str()
		if !ok || name == "" {
			continue
		}
		ns := namespace
		if !nsNode.absent() {
			s, ok := nsNode.str()
			if !ok {
				continue
			}
			if s != "" {
				ns = s
			}
		}
		id, secret := identity{ns, name}, nameNode.secret || nsNode.secret
		first, dup := seen[id]
		if !dup {
			seen[id] = seenItem{i, secret}
			continue
		}
		object := ns + "/" + name
		if secret || first.secret {
			object = secretShown
		}
		c.reject(nameNode.path, "items[%d] and items[%d] both name the Endpoints object %s; "+
			"each item must manage a different object", first.index, i, object)
	}
	return c.result(normalized)
}

// endpointSubset checks one subset of an Endpoints object.
func (c *checker) endpointSubset(ss node) {
	addresses, notReady := ss.get("addresses"), ss.get("notReadyAddresses")
	ready, _ := addresses.items()
	notReadyItems, _ := notReady.items()
	if isEmptyList(addresses) && isEmptyList(notReady) {
		c.reject(ss.path, "a subset needs at least one address, in addresses or notReadyAddresses")
	}

	readyIPs := map[string]int{}
	for i, a := range ready {
		c.endpointAddress(a)
		if ip, ok := parsedIP(a.get("ip")); ok {
			if _, dup := readyIPs[ip]; !dup {
				readyIPs[ip] = i
			}
		}
	}
	for _, a := range notReadyItems {
		c.endpointAddress(a)
		if ip, ok := parsedIP(a.get("ip")); ok {
			if first, both := readyIPs[ip]; both {
				c.warn(a.get("ip").path, "%s is also listed as ready (addresses[%d]) in this subset; the specification "+
					"says an address is never both ready and not ready (the API server accepts it)",
					a.get("ip").show(ip), first)
			}
		}
	}

	ports, _ := ss.get("ports").items()
	names := map[string]int{}
	for i, p := range ports {
		name := p.get("name")
		s, known := name.str()
		if name.absent() {
			s, known = "", true
		}
		switch {
		case !known:
		case s == "" && len(ports) > 1:
			c.reject(name.path, "a port name is required when the subset has more than one port")
		case s != "" && !isDNSLabel(s):
			c.reject(name.path, "port name %s (got %s)", dnsLabelRule, name.quote(s))
		case s != "":
			if first, dup := names[s]; dup {
				c.warn(name.path, "ports[%d] of this subset has the same name; names should tell the ports apart "+
					"(the API server accepts it)", first)
			} else {
				names[s] = i
			}
		}
		if v, ok := p.get("port").integer(); ok && (v < 1 || v > 65535) {
			c.reject(p.get("port").path, "must be a port number between 1 and 65535 (got %s)",
				p.get("port").show(strconv.FormatFloat(v, 'f', -1, 64)))
		}
		c.checkAppProtocol(p.get("appProtocol"))
	}
}

// endpointAddress checks one address of a subset.
func (c *checker) endpointAddress(a node) {
	c.checkEndpointIP(a.get("ip"), legacyIP)
	if s, ok := a.get("hostname").str(); ok && s != "" {
		c.checkDNSLabel(a.get("hostname"))
	}
	c.checkDNSSubdomain(a.get("nodeName"))
}

// isEmptyList reports whether n is known to hold no elements: absent or [].
func isEmptyList(n node) bool {
	if n.absent() {
		return true
	}
	items, ok := n.items()
	return ok && len(items) == 0
}

// parsedIP returns the canonical form of a known, parseable IP.
func parsedIP(n node) (string, bool) {
	s, ok := n.str()
	if !ok {
		return "", false
	}
	ip := netutils.ParseIPSloppy(s)
	if ip == nil {
		return "", false
	}
	return ip.String(), true
}
