package validate

import (
	"strconv"

	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// EndpointSlice rules, as kube-apiserver validates discovery.k8s.io/v1 EndpointSlice
// on create (pkg/apis/discovery/validation and the registry strategy); where the rules
// differ by minor, minors.go decides.

const (
	sliceResource         = spec.EndpointSliceToken
	sliceEndpointType     = "endpoints:discovery.k8s.io/v1:Endpoint"
	sliceEndpointPortType = "endpoints:discovery.k8s.io/v1:EndpointPort"
	forZoneType           = "endpoints:discovery.k8s.io/v1:ForZone"
)

const (
	// maxSliceEndpoints is the limit on endpoints per slice (spec and server).
	maxSliceEndpoints = 1000
	// maxEndpointAddresses is the limit on addresses per endpoint (spec and server).
	maxEndpointAddresses = 100
	// specMaxSlicePorts is the specification's limit on ports per slice; the server
	// allows more (serverMaxSlicePorts), so exceeding it draws a warning.
	specMaxSlicePorts = 100
	// serverMaxSlicePorts is the server's limit on ports per slice.
	serverMaxSlicePorts = 20000
	// maxHints is the server's limit on the entries of hints.forZones and of
	// hints.forNodes, each.
	maxHints = 8
)

// ignoredSliceEndpoint are the Endpoint properties that the server drops from
// discovery.k8s.io/v1 writes (before validating them).
var ignoredSliceEndpoint = map[string]string{
	"deprecatedTopology": "deprecated, and the discovery.k8s.io/v1 API discards writes to it (use zone and nodeName instead)",
}

const (
	sliceEndpointsMissing = "required by the schema but not set; the API server accepts it and creates the slice " +
		"with no endpoints (set endpoints: [] to say so)"
	forZoneNameMissing = "required by the schema but not set; the API server accepts it and stores the zone hint " +
		"with an empty name, which matches no zone"
)

// EndpointSlice validates the inputs of an endpoints:discovery.k8s.io/v1:EndpointSlice
// resource for the server they will be written to (nil: Newest), as the store writes
// them (written: what every write adds), and returns them normalized.
func EndpointSlice(inputs property.Map, srv Server, written Written) Result {
	c := &checker{server: newServer(srv), written: written}
	w := walker{checker: c, pkg: spec.MustLoad()}
	normalized := w.resource(sliceResource, c.dropNodeHints(inputs))

	root := rootNode(normalized)
	c.objectMeta(root.get("metadata"))

	addressType, _ := root.get("addressType").str()
	if addressType == "FQDN" {
		c.warn(path{}.key("addressType"), "FQDN endpoints are deprecated by Kubernetes")
	}
	if endpoints, ok := root.get("endpoints").items(); ok {
		if len(endpoints) > maxSliceEndpoints {
			c.reject(root.get("endpoints").path, "at most %d endpoints per slice (got %d)", maxSliceEndpoints, len(endpoints))
		}
		for _, e := range endpoints {
			c.sliceEndpoint(e, addressType)
		}
	}
	c.slicePorts(root.get("ports"))
	return c.result(normalized)
}

// sliceEndpoint checks one endpoint; addressType is "" when it is unknown or invalid,
// in which case (as on the server) addresses are not checked against it.
func (c *checker) sliceEndpoint(e node, addressType string) {
	addresses := e.get("addresses")
	if items, ok := addresses.items(); ok {
		switch {
		case len(items) == 0:
			c.reject(addresses.path, "an endpoint needs at least 1 address")
		case len(items) > maxEndpointAddresses:
			c.reject(addresses.path, "at most %d addresses per endpoint (got %d)", maxEndpointAddresses, len(items))
		}
		for _, a := range items {
			switch addressType {
			case "IPv4":
				c.checkEndpointIP(a, legacyIPv4)
			case "IPv6":
				c.checkEndpointIP(a, strictIPv6)
			case "FQDN":
				c.checkFQDN(a)
			}
		}
	}
	c.checkDNSLabel(e.get("hostname"))
	c.checkDNSSubdomain(e.get("nodeName"))

	hints := e.get("hints")
	c.hintNames(hints, "forZones", "zone", func(name node, s string) {
		if !isLabelValue(s) {
			c.reject(name.path, "zone name %s (got %s)", labelValueRule, name.quote(s))
		}
	})
	c.hintNames(hints, "forNodes", "node", func(name node, s string) {
		if !isDNSSubdomain(s) {
			c.reject(name.path, "node name %s (got %s)", dnsSubdomainRule, name.quote(s))
		}
	})
}

// dropNodeHints removes hints.forNodes from every endpoint, with a warning, where the
// server drops them (see server.nodeHints): what it drops it neither validates nor
// stores, so Check does not either, and a refresh reads back what Check passed on.
// The server is asked only when an endpoint sets node hints.
func (c *checker) dropNodeHints(inputs property.Map) property.Map {
	endpoints := inputs.Get("endpoints")
	if !endpoints.IsArray() {
		return inputs
	}
	out, changed := make([]property.Value, 0, endpoints.AsArray().Len()), false
	for i, e := range endpoints.AsArray().All {
		var hints property.Value
		if e.IsMap() {
			hints = e.AsMap().Get("hints")
		}
		if !hints.IsMap() || hints.AsMap().Get("forNodes").IsNull() {
			out = append(out, e)
			continue
		}
		why := c.server.nodeHints()
		if why == "" {
			return inputs
		}
		c.warn(path{}.key("endpoints").index(i).key("hints").key("forNodes"), "%s", why)
		kept := property.WithGoValue(hints, hints.AsMap().Delete("forNodes"))
		out, changed = append(out, property.WithGoValue(e, e.AsMap().Set("hints", kept))), true
	}
	if !changed {
		return inputs
	}
	return inputs.Set("endpoints", property.WithGoValue(endpoints, property.NewArray(out)))
}

// hintNames checks the entries of hints.forZones or hints.forNodes: at most
// maxHints, no name twice, each name by checkName. The server reads a missing name as
// "" (for nodes, the schema's required rule reports it first).
func (c *checker) hintNames(hints node, field, what string, checkName func(name node, s string)) {
	n := hints.get(field)
	entries, ok := n.items()
	if !ok {
		return
	}
	if len(entries) > maxHints {
		c.reject(n.path, "at most %d %ss per endpoint hint (got %d)", maxHints, what, len(entries))
	}
	seen := map[string]int{}
	for i, entry := range entries {
		name := entry.get("name")
		s, ok := name.str()
		missing := entry.v.IsMap() && name.absent()
		if !ok && !missing {
			continue // unknown, or not a string
		}
		if !missing || what == "zone" {
			checkName(name, s)
		}
		if first, dup := seen[s]; dup {
			c.reject(name.path, "duplicate %s: %s[%d] names the same %s", what, field, first, what)
		} else {
			seen[s] = i
		}
	}
}

// slicePorts checks the ports of a slice.
func (c *checker) slicePorts(n node) {
	ports, ok := n.items()
	if !ok {
		return
	}
	switch {
	case len(ports) > serverMaxSlicePorts:
		c.reject(n.path, "at most %d ports per slice (got %d)", serverMaxSlicePorts, len(ports))
	case len(ports) > specMaxSlicePorts:
		c.warn(n.path, "the specification allows at most %d ports per slice (got %d); the API server accepts up to %d",
			specMaxSlicePorts, len(ports), serverMaxSlicePorts)
	}
	seen := map[string]int{}
	for i, p := range ports {
		name := p.get("name")
		if s, ok := name.str(); ok {
			if s != "" && !isDNSLabel(s) {
				c.reject(name.path, "port name must be empty or a DNS label (RFC 1123): lowercase alphanumerics or '-', "+
					"starting and ending with an alphanumeric, at most 63 characters (got %s)", name.quote(s))
			}
			if first, dup := seen[s]; dup {
				if s == "" {
					c.reject(name.path, "port names must be unique within a slice: ports[%d] is unnamed too "+
						"(at most one port may have an empty name)", first)
				} else {
					c.reject(name.path, "port names must be unique within a slice: ports[%d] has the same name", first)
				}
			} else {
				seen[s] = i
			}
		}
		if v, ok := c.int32Value(p.get("port")); ok && (v < 1 || v > 65535) {
			c.warn(p.get("port").path, "%s is not a port number (1-65535); the API server accepts it, "+
				"but consumers of the slice will not be able to use it", p.get("port").show(strconv.FormatInt(v, 10)))
		}
		c.checkAppProtocol(p.get("appProtocol"))
	}
}
