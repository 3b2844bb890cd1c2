package validate

import (
	"strconv"

	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// EndpointSlice rules, as kube-apiserver 1.34 validates discovery.k8s.io/v1
// EndpointSlice on create (pkg/apis/discovery/validation and the registry strategy).

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
	// maxZoneHints is the server's limit on hints.forZones entries.
	maxZoneHints = 8
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
// resource and returns them normalized.
func EndpointSlice(inputs property.Map) Result {
	c := &checker{}
	w := walker{checker: c, pkg: spec.MustLoad()}
	normalized := w.resource(sliceResource, inputs)

	root := rootNode(normalized)
	c.objectMeta(root.get("metadata"))

	addressType, _ := root.get("addressType").str()
	if addressType == "FQDN" {
		c.warn(path{}.key("addressType"), "FQDN endpoints are deprecated by Kubernetes")
	}
	if endpoints, ok := root.get("endpoints").items(); ok {
		if len(endpoints) > maxSliceEndpoints {
			c.fail(root.get("endpoints").path, "at most %d endpoints per slice (got %d)", maxSliceEndpoints, len(endpoints))
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
			c.fail(addresses.path, "an endpoint needs at least 1 address")
		case len(items) > maxEndpointAddresses:
			c.fail(addresses.path, "at most %d addresses per endpoint (got %d)", maxEndpointAddresses, len(items))
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

	forZones := e.get("hints").get("forZones")
	if zones, ok := forZones.items(); ok {
		if len(zones) > maxZoneHints {
			c.fail(forZones.path, "at most %d zones per endpoint hint (got %d)", maxZoneHints, len(zones))
		}
		seen := map[string]int{}
		for i, z := range zones {
			name := z.get("name")
			s, ok := name.str()
			missing := z.v.IsMap() && name.absent() // the server reads a missing name as ""
			if !ok && !missing {
				continue // unknown, or not a string
			}
			if !isLabelValue(s) {
				c.fail(name.path, "zone name %s (got %s)", labelValueRule, name.quote(s))
			}
			if first, dup := seen[s]; dup {
				c.fail(name.path, "duplicate zone: forZones[%d] names the same zone", first)
			} else {
				seen[s] = i
			}
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
		c.fail(n.path, "at most %d ports per slice (got %d)", serverMaxSlicePorts, len(ports))
	case len(ports) > specMaxSlicePorts:
		c.warn(n.path, "the specification allows at most %d ports per slice (got %d); the API server accepts up to %d",
			specMaxSlicePorts, len(ports), serverMaxSlicePorts)
	}
	seen := map[string]int{}
	for i, p := range ports {
		name := p.get("name")
		if s, ok := name.str(); ok {
			if s != "" && !isDNSLabel(s) {
				c.fail(name.path, "port name must be empty or a DNS label (RFC 1123): lowercase alphanumerics or '-', "+
					"starting and ending with an alphanumeric, at most 63 characters (got %s)", name.quote(s))
			}
			if first, dup := seen[s]; dup {
				if s == "" {
					c.fail(name.path, "port names must be unique within a slice: ports[%d] is unnamed too "+
						"(at most one port may have an empty name)", first)
				} else {
					c.fail(name.path, "port names must be unique within a slice: ports[%d] has the same name", first)
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
