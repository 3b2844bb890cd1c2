package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/urn"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/propertytest"
)

// slice4 is an IPv4 slice whose endpoints are given.
func slice4(endpoints string) string {
	return `{"addressType":"IPv4","endpoints":[` + endpoints + `]}`
}

// sliceOf is a slice of addressType with one endpoint holding addr.
func sliceOf(addressType, addr string) string {
	return fmt.Sprintf(`{"addressType":%q,"endpoints":[{"addresses":[%q]}]}`, addressType, addr)
}

// withPorts is an IPv4 slice without endpoints and with the ports given.
func withPorts(ports string) string {
	return `{"addressType":"IPv4","endpoints":[],"ports":[` + ports + `]}`
}

func repeatJSON(n int, format string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strings.ReplaceAll(format, "%d", fmt.Sprint(i))
	}
	return strings.Join(parts, ",")
}

func TestEndpointSliceRules(t *testing.T) {
	t.Parallel()
	const addr0 = "endpoints[0].addresses[0]"
	tests := []struct {
		name     string
		minor    int // the server's minor; 0: Newest
		doc      string
		failures []want
		warnings []want
	}{
		{name: "valid", doc: sliceOf("IPv4", "10.0.0.1")},
		{name: "no endpoints", doc: slice4("")},

		// Limits.
		{name: "1000 endpoints", doc: slice4(repeatJSON(1000, `{"addresses":["10.0.0.1"]}`))},
		{
			name:     "1001 endpoints",
			doc:      slice4(repeatJSON(1001, `{"addresses":["10.0.0.1"]}`)),
			failures: []want{{"endpoints", "at most 1000 endpoints per slice (got 1001)"}},
		},
		{
			name:     "no addresses",
			doc:      slice4(`{"addresses":[]}`),
			failures: []want{{"endpoints[0].addresses", "an endpoint needs at least 1 address"}},
		},
		{name: "100 addresses", doc: slice4(`{"addresses":[` + repeatJSON(100, `"10.0.1.%d"`) + `]}`)},
		{
			name:     "101 addresses",
			doc:      slice4(`{"addresses":[` + repeatJSON(101, `"10.0.1.%d"`) + `]}`),
			failures: []want{{"endpoints[0].addresses", "at most 100 addresses per endpoint (got 101)"}},
		},

		// IPv4 addresses.
		{name: "IPv4 global multicast", doc: sliceOf("IPv4", "224.0.1.1")},
		{name: "IPv4 broadcast", doc: sliceOf("IPv4", "255.255.255.255")},
		{
			name:     "IPv4 loopback",
			doc:      sliceOf("IPv4", "127.0.0.1"),
			failures: []want{{addr0, "127.0.0.1 is a loopback address (127.0.0.0/8 or ::1), which endpoints may not use"}},
		},
		{
			name:     "IPv4 loopback anywhere in 127/8",
			doc:      sliceOf("IPv4", "127.200.0.9"),
			failures: []want{{addr0, "is a loopback address"}},
		},
		{
			name:     "IPv4 link-local",
			doc:      sliceOf("IPv4", "169.254.169.254"),
			failures: []want{{addr0, "169.254.169.254 is a link-local address (169.254.0.0/16 or fe80::/10)"}},
		},
		{
			name:     "IPv4 link-local multicast",
			doc:      sliceOf("IPv4", "224.0.0.251"),
			failures: []want{{addr0, "224.0.0.251 is a link-local multicast address"}},
		},
		{
			name:     "IPv4 unspecified",
			doc:      sliceOf("IPv4", "0.0.0.0"),
			failures: []want{{addr0, "0.0.0.0 is the unspecified address"}},
		},
		{
			name:     "IPv4 leading zeros are accepted with a warning before 1.36",
			minor:    35,
			doc:      sliceOf("IPv4", "010.1.2.3"),
			warnings: []want{{addr0, `non-standard IP address "010.1.2.3" is refused from Kubernetes 1.36: use "10.1.2.3"`}},
		},
		{
			name:     "IPv4 leading zeros are accepted with a warning on 1.32",
			minor:    OldestMinor,
			doc:      sliceOf("IPv4", "010.1.2.3"),
			warnings: []want{{addr0, `non-standard IP address "010.1.2.3" is refused from Kubernetes 1.36`}},
		},
		{
			name:     "IPv4 leading zeros are refused from 1.36",
			minor:    36,
			doc:      sliceOf("IPv4", "010.1.2.3"),
			failures: []want{{addr0, `010.1.2.3 must not have leading zeros in its octets (Kubernetes 1.36 refuses them): use "10.1.2.3"`}},
		},
		{
			name:     "IPv4-mapped IPv6 in an IPv4 slice is accepted with a warning before 1.36",
			minor:    33,
			doc:      sliceOf("IPv4", "::ffff:10.1.2.3"),
			warnings: []want{{addr0, `use "10.1.2.3"`}},
		},
		{
			name:     "IPv4-mapped IPv6 in an IPv4 slice is refused from 1.36",
			doc:      sliceOf("IPv4", "::ffff:10.1.2.3"),
			failures: []want{{addr0, `::ffff:10.1.2.3 must not be an IPv4-mapped IPv6 address (Kubernetes 1.37 refuses them): use "10.1.2.3"`}},
		},
		{
			name:     "IPv4-mapped loopback before 1.36",
			minor:    35,
			doc:      sliceOf("IPv4", "::ffff:127.0.0.1"),
			failures: []want{{addr0, "is a loopback address"}},
			warnings: []want{{addr0, "non-standard IP address"}},
		},
		{
			name:     "IPv4-mapped loopback from 1.36",
			doc:      sliceOf("IPv4", "::ffff:127.0.0.1"),
			failures: []want{{addr0, "must not be an IPv4-mapped IPv6 address"}},
		},
		{
			name:     "IPv6 in an IPv4 slice",
			doc:      sliceOf("IPv4", "2001:db8::1"),
			failures: []want{{addr0, "2001:db8::1 is not an IPv4 address, as the slice's addressType IPv4 requires"}},
		},
		{
			name:     "not an IP",
			doc:      sliceOf("IPv4", "10.0.0.256"),
			failures: []want{{addr0, `"10.0.0.256" is not a valid IP address`}},
		},
		{
			name:     "CIDR is not an IP",
			doc:      sliceOf("IPv4", "10.0.0.1/32"),
			failures: []want{{addr0, "is not a valid IP address"}},
		},

		// IPv6 addresses.
		{name: "IPv6", doc: sliceOf("IPv6", "2001:db8::1")},
		{name: "IPv6 site-local (not link-local)", doc: sliceOf("IPv6", "fec0::1")},
		{name: "IPv6 global multicast", doc: sliceOf("IPv6", "ff0e::1")},
		{
			name:     "IPv6 not canonical (uppercase)",
			doc:      sliceOf("IPv6", "2001:DB8::1"),
			failures: []want{{addr0, `2001:DB8::1 must be written in canonical form (RFC 5952): "2001:db8::1"`}},
		},
		{
			name:     "IPv6 not canonical (zeros)",
			doc:      sliceOf("IPv6", "2001:db8:0:0::1"),
			failures: []want{{addr0, `canonical form (RFC 5952): "2001:db8::1"`}},
		},
		{
			name:     "IPv6 not canonical is refused from 1.33",
			minor:    33,
			doc:      sliceOf("IPv6", "2001:db8:0:0:0:0:0:1"),
			failures: []want{{addr0, `canonical form (RFC 5952): "2001:db8::1"`}},
		},
		{
			name:     "IPv6 not canonical is accepted with a warning on 1.32",
			minor:    OldestMinor,
			doc:      sliceOf("IPv6", "2001:db8:0:0:0:0:0:1"),
			warnings: []want{{addr0, `IPv6 address "2001:db8:0:0:0:0:0:1" is refused from Kubernetes 1.33, which requires the canonical form (RFC 5952): use "2001:db8::1"`}},
		},
		{
			name:     "IPv4-mapped IPv6 in an IPv6 slice on 1.32",
			minor:    OldestMinor,
			doc:      sliceOf("IPv6", "::ffff:10.0.0.1"),
			failures: []want{{addr0, "is an IPv4-mapped IPv6 address, which an IPv6 slice may not hold"}},
		},
		{
			name:     "IPv6 loopback",
			doc:      sliceOf("IPv6", "::1"),
			failures: []want{{addr0, "::1 is a loopback address"}},
		},
		{
			name:     "IPv6 link-local",
			doc:      sliceOf("IPv6", "fe80::1"),
			failures: []want{{addr0, "fe80::1 is a link-local address"}},
		},
		{
			name:     "IPv6 link-local multicast ff02::/16",
			doc:      sliceOf("IPv6", "ff02::1"),
			failures: []want{{addr0, "ff02::1 is a link-local multicast address"}},
		},
		{
			name:     "IPv6 link-local scope multicast with flags (as the server decides)",
			doc:      sliceOf("IPv6", "ff12::1"),
			failures: []want{{addr0, "ff12::1 is a link-local multicast address"}},
		},
		{
			name:     "IPv6 unspecified",
			doc:      sliceOf("IPv6", "::"),
			failures: []want{{addr0, ":: is the unspecified address"}},
		},
		{
			name:     "IPv4 in an IPv6 slice",
			doc:      sliceOf("IPv6", "10.0.0.1"),
			failures: []want{{addr0, "10.0.0.1 is not an IPv6 address, as the slice's addressType IPv6 requires"}},
		},
		{
			name:     "IPv4-mapped IPv6 in an IPv6 slice",
			doc:      sliceOf("IPv6", "::ffff:10.0.0.1"),
			failures: []want{{addr0, "is an IPv4-mapped IPv6 address, which an IPv6 slice may not hold"}},
		},
		{
			name:     "IPv4 with leading zeros in an IPv6 slice",
			doc:      sliceOf("IPv6", "010.0.0.1"),
			failures: []want{{addr0, "010.0.0.1 is not an IPv6 address"}},
		},
		{
			name:     "IPv6 with a zone",
			doc:      sliceOf("IPv6", "fe80::1%eth0"),
			failures: []want{{addr0, "is not a valid IP address"}},
		},

		// FQDN addresses.
		{name: "FQDN", doc: sliceOf("FQDN", "web.example.com"), warnings: []want{{"addressType", "FQDN endpoints are deprecated"}}},
		{name: "FQDN with a trailing dot", doc: sliceOf("FQDN", "web.example.com."), warnings: []want{{"addressType", "deprecated"}}},
		{
			name:     "FQDN with one label",
			doc:      sliceOf("FQDN", "web"),
			failures: []want{{addr0, "must be a fully qualified domain name"}},
			warnings: []want{{"addressType", "deprecated"}},
		},
		{
			name:     "FQDN with uppercase",
			doc:      sliceOf("FQDN", "Web.example.com"),
			failures: []want{{addr0, `(got "Web.example.com")`}},
			warnings: []want{{"addressType", "deprecated"}},
		},
		{
			name:     "FQDN with a label of 64 characters",
			doc:      sliceOf("FQDN", strings.Repeat("a", 64)+".com"),
			failures: []want{{addr0, "must be a fully qualified domain name"}},
			warnings: []want{{"addressType", "deprecated"}},
		},
		{
			name:     "addresses unchecked when addressType is invalid (as on the server)",
			doc:      `{"addressType":"IPv5","endpoints":[{"addresses":["127.0.0.1"]}]}`,
			failures: []want{{"addressType", "must be one of"}},
		},

		// Endpoint fields.
		{
			name:     "hostname uppercase",
			doc:      slice4(`{"addresses":["10.0.0.1"],"hostname":"Web-0"}`),
			failures: []want{{"endpoints[0].hostname", `must be a DNS label (RFC 1123): lowercase alphanumerics or '-', starting and ending with an alphanumeric, at most 63 characters (got "Web-0")`}},
		},
		{
			name:     "hostname empty",
			doc:      slice4(`{"addresses":["10.0.0.1"],"hostname":""}`),
			failures: []want{{"endpoints[0].hostname", "must be a DNS label"}},
		},
		{
			name:     "hostname 64 characters",
			doc:      slice4(`{"addresses":["10.0.0.1"],"hostname":"` + strings.Repeat("h", 64) + `"}`),
			failures: []want{{"endpoints[0].hostname", "must be a DNS label"}},
		},
		{name: "hostname 63 characters", doc: slice4(`{"addresses":["10.0.0.1"],"hostname":"` + strings.Repeat("h", 63) + `"}`)},
		{
			name:     "nodeName not a DNS subdomain",
			doc:      slice4(`{"addresses":["10.0.0.1"],"nodeName":"node_1"}`),
			failures: []want{{"endpoints[0].nodeName", "must be a DNS subdomain (RFC 1123)"}},
		},
		{
			name:     "nodeName empty",
			doc:      slice4(`{"addresses":["10.0.0.1"],"nodeName":""}`),
			failures: []want{{"endpoints[0].nodeName", "must be a DNS subdomain"}},
		},
		{name: "zone is free-form", doc: slice4(`{"addresses":["10.0.0.1"],"zone":"Any Zone!"}`)},
		{name: "targetRef is free-form", doc: slice4(`{"addresses":["10.0.0.1"],"targetRef":{"kind":"?","name":"A B"}}`)},
		{name: "conditions", doc: slice4(`{"addresses":["10.0.0.1"],"conditions":{"ready":true,"serving":false,"terminating":false}}`)},
		{name: "8 zone hints", doc: slice4(`{"addresses":["10.0.0.1"],"hints":{"forZones":[` + repeatJSON(8, `{"name":"z%d"}`) + `]}}`)},
		{
			name:     "9 zone hints",
			doc:      slice4(`{"addresses":["10.0.0.1"],"hints":{"forZones":[` + repeatJSON(9, `{"name":"z%d"}`) + `]}}`),
			failures: []want{{"endpoints[0].hints.forZones", "at most 8 zones per endpoint hint (got 9)"}},
		},
		{
			name:     "duplicate zone hints",
			doc:      slice4(`{"addresses":["10.0.0.1"],"hints":{"forZones":[{"name":"a"},{"name":"b"},{"name":"a"}]}}`),
			failures: []want{{"endpoints[0].hints.forZones[2].name", `duplicate zone: forZones[0] names the same zone`}},
		},
		{
			name:     "zone hint not a label value",
			doc:      slice4(`{"addresses":["10.0.0.1"],"hints":{"forZones":[{"name":"us east"}]}}`),
			failures: []want{{"endpoints[0].hints.forZones[0].name", `zone name must be empty or at most 63`}},
		},
		{
			name:     "zone hints without names collide",
			doc:      slice4(`{"addresses":["10.0.0.1"],"hints":{"forZones":[{},{"name":""}]}}`),
			failures: []want{{"endpoints[0].hints.forZones[1].name", "duplicate zone"}},
			warnings: []want{{"endpoints[0].hints.forZones[0].name", "required by the schema but not set; the API server accepts it and stores the zone hint"}},
		},
		{name: "node hints", doc: slice4(`{"addresses":["10.0.0.1"],"hints":{"forNodes":[{"name":"node-1"},{"name":"ip-10-0-0-2.ec2.internal"}],"forZones":[{"name":"a"}]}}`)},
		{name: "8 node hints", doc: slice4(`{"addresses":["10.0.0.1"],"hints":{"forNodes":[` + repeatJSON(8, `{"name":"n%d"}`) + `]}}`)},
		{
			name:     "9 node hints",
			doc:      slice4(`{"addresses":["10.0.0.1"],"hints":{"forNodes":[` + repeatJSON(9, `{"name":"n%d"}`) + `]}}`),
			failures: []want{{"endpoints[0].hints.forNodes", "at most 8 nodes per endpoint hint (got 9)"}},
		},
		{
			name:     "duplicate node hints",
			doc:      slice4(`{"addresses":["10.0.0.1"],"hints":{"forNodes":[{"name":"a"},{"name":"b"},{"name":"a"}]}}`),
			failures: []want{{"endpoints[0].hints.forNodes[2].name", `duplicate node: forNodes[0] names the same node`}},
		},
		{
			name:     "node hint not a DNS subdomain",
			doc:      slice4(`{"addresses":["10.0.0.1"],"hints":{"forNodes":[{"name":"Node_1"}]}}`),
			failures: []want{{"endpoints[0].hints.forNodes[0].name", `node name must be a DNS subdomain (RFC 1123)`}},
		},
		{
			name:     "node hint with an empty name",
			doc:      slice4(`{"addresses":["10.0.0.1"],"hints":{"forNodes":[{"name":""}]}}`),
			failures: []want{{"endpoints[0].hints.forNodes[0].name", `node name must be a DNS subdomain (RFC 1123)`}},
		},
		{
			name:     "node hint without a name",
			doc:      slice4(`{"addresses":["10.0.0.1"],"hints":{"forNodes":[{}]}}`),
			failures: []want{{"endpoints[0].hints.forNodes[0].name", `required`}},
		},
		{
			name:     "deprecatedTopology is dropped, not validated",
			doc:      slice4(`{"addresses":["10.0.0.1"],"deprecatedTopology":{"bad key":"bad value!"}}`),
			warnings: []want{{"endpoints[0].deprecatedTopology", "deprecated, and the discovery.k8s.io/v1 API discards writes to it"}},
		},

		// Ports.
		{name: "port defaults", doc: withPorts(`{"port":80}`)},
		{name: "port without a number", doc: withPorts(`{"name":"all"}`)},
		{
			name:     "two unnamed ports",
			doc:      withPorts(`{"port":80},{"port":81}`),
			failures: []want{{"ports[1].name", "port names must be unique within a slice: ports[0] is unnamed too (at most one port may have an empty name)"}},
		},
		{
			name:     "duplicate port names",
			doc:      withPorts(`{"name":"http","port":80},{"name":"a","port":81},{"name":"http","port":82}`),
			failures: []want{{"ports[2].name", `port names must be unique within a slice: ports[0] has the same name`}},
		},
		{
			name:     "port name uppercase",
			doc:      withPorts(`{"name":"HTTP","port":80}`),
			failures: []want{{"ports[0].name", "port name must be empty or a DNS label (RFC 1123)"}},
		},
		{
			name:     "port name 64 characters",
			doc:      withPorts(`{"name":"` + strings.Repeat("p", 64) + `"}`),
			failures: []want{{"ports[0].name", "at most 63 characters"}},
		},
		{name: "port name 63 characters", doc: withPorts(`{"name":"` + strings.Repeat("p", 63) + `"}`)},
		{
			name:     "port 0 warns",
			doc:      withPorts(`{"port":0}`),
			warnings: []want{{"ports[0].port", "0 is not a port number (1-65535); the API server accepts it"}},
		},
		{
			name:     "port 65536 warns",
			doc:      withPorts(`{"port":65536}`),
			warnings: []want{{"ports[0].port", "65536 is not a port number"}},
		},
		{
			name:     "port beyond 32 bits",
			doc:      withPorts(`{"port":2147483648}`),
			failures: []want{{"ports[0].port", "must be a 32-bit integer"}},
		},
		{
			name:     "protocol enum",
			doc:      withPorts(`{"port":80,"protocol":"HTTP"}`),
			failures: []want{{"ports[0].protocol", `must be one of "TCP", "UDP", "SCTP" (got "HTTP")`}},
		},
		{
			name:     "protocol empty is rejected in a slice",
			doc:      withPorts(`{"port":80,"protocol":""}`),
			failures: []want{{"ports[0].protocol", `must be one of "TCP", "UDP", "SCTP" (got "")`}},
		},
		{name: "100 ports", doc: withPorts(repeatJSON(100, `{"name":"p%d"}`))},
		{
			name:     "101 ports warn",
			doc:      withPorts(repeatJSON(101, `{"name":"p%d"}`)),
			warnings: []want{{"ports", "the specification allows at most 100 ports per slice (got 101); the API server accepts up to 20000"}},
		},
		{
			name:     "20001 ports",
			doc:      withPorts(repeatJSON(20001, `{"name":"p%d"}`)),
			failures: []want{{"ports", "at most 20000 ports per slice (got 20001)"}},
		},

		// appProtocol.
		{name: "appProtocol IANA name", doc: withPorts(`{"port":80,"appProtocol":"http"}`)},
		{name: "appProtocol kubernetes.io/h2c", doc: withPorts(`{"port":80,"appProtocol":"kubernetes.io/h2c"}`)},
		{name: "appProtocol kubernetes.io/ws", doc: withPorts(`{"port":80,"appProtocol":"kubernetes.io/ws"}`)},
		{name: "appProtocol kubernetes.io/wss", doc: withPorts(`{"port":80,"appProtocol":"kubernetes.io/wss"}`)},
		{name: "appProtocol domain-prefixed", doc: withPorts(`{"port":80,"appProtocol":"example.com/My_Proto"}`)},
		{
			name:     "appProtocol kubernetes.io/foo warns",
			doc:      withPorts(`{"port":80,"appProtocol":"kubernetes.io/foo"}`),
			warnings: []want{{"ports[0].appProtocol", `"kubernetes.io/foo" is not a protocol that Kubernetes defines`}},
		},
		{
			name:     "appProtocol outside RFC 6335 syntax warns",
			doc:      withPorts(`{"port":80,"appProtocol":"my_proto"}`),
			warnings: []want{{"ports[0].appProtocol", `"my_proto" is not an IANA service name`}},
		},
		{
			name:     "appProtocol not a qualified name",
			doc:      withPorts(`{"port":80,"appProtocol":"Bad Proto"}`),
			failures: []want{{"ports[0].appProtocol", `must be a qualified name`}},
		},
		{
			name:     "appProtocol with two slashes",
			doc:      withPorts(`{"port":80,"appProtocol":"a/b/c"}`),
			failures: []want{{"ports[0].appProtocol", `must be a qualified name`}},
		},
		{
			name:     "appProtocol with an uppercase domain",
			doc:      withPorts(`{"port":80,"appProtocol":"Example.com/x"}`),
			failures: []want{{"ports[0].appProtocol", `must be a qualified name`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkResult(t, EndpointSlice(inputs(t, tt.doc), minorOr(tt.minor), Written{}), tt.failures, tt.warnings)
		})
	}
}

func TestEndpointSliceNormalizes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, want string
		warnings        []want
	}{
		{
			name: "port defaults",
			doc:  withPorts(`{"port":80},{"name":"b","protocol":"UDP"}`),
			want: withPorts(`{"name":"","port":80,"protocol":"TCP"},{"name":"b","protocol":"UDP"}`),
		},
		{
			name: "null port fields get defaults",
			doc:  withPorts(`{"name":null,"protocol":null}`),
			want: withPorts(`{"name":"","protocol":"TCP"}`),
		},
		{
			name: "defaults inside a secret port stay secret",
			doc:  withPorts(`{"$secret":{"port":80}}`),
			want: withPorts(`{"$secret":{"name":"","port":80,"protocol":"TCP"}}`),
		},
		{
			name: "unknown ports are left alone",
			doc:  `{"addressType":"IPv4","endpoints":[],"ports":"$unknown"}`,
			want: `{"addressType":"IPv4","endpoints":[],"ports":"$unknown"}`,
		},
		{
			name: "unknown port elements are left alone",
			doc:  withPorts(`"$unknown"`),
			want: withPorts(`"$unknown"`),
		},
		{
			name:     "deprecatedTopology dropped",
			doc:      slice4(`{"addresses":["10.0.0.1"],"deprecatedTopology":{"a":"b"},"zone":"z"}`),
			want:     slice4(`{"addresses":["10.0.0.1"],"zone":"z"}`),
			warnings: []want{{"endpoints[0].deprecatedTopology", "discards writes"}},
		},
		{
			name: "null deprecatedTopology dropped silently",
			doc:  slice4(`{"addresses":["10.0.0.1"],"deprecatedTopology":null}`),
			want: slice4(`{"addresses":["10.0.0.1"]}`),
		},
		{
			name: "server-owned metadata dropped, the rest kept",
			doc: `{"metadata":{"name":"web","uid":"1","resourceVersion":"2","creationTimestamp":"t","deletionTimestamp":"t",
				"deletionGracePeriodSeconds":30,"generation":3,"selfLink":"/x","managedFields":[],"clusterName":"c",
				"labels":{"a":"b"}},"addressType":"IPv4","endpoints":[]}`,
			want: `{"metadata":{"name":"web","labels":{"a":"b"}},"addressType":"IPv4","endpoints":[]}`,
			warnings: []want{
				{"metadata.clusterName", "no longer part of the Kubernetes API"},
				{"metadata.creationTimestamp", "the API server sets it when it creates the object; the value is ignored and not sent to the API server"},
				{"metadata.deletionGracePeriodSeconds", "when deletion is requested"},
				{"metadata.deletionTimestamp", "when deletion is requested"},
				{"metadata.generation", "the API server sets it"},
				{"metadata.managedFields", "field management"},
				{"metadata.resourceVersion", "a create must not carry one"},
				{"metadata.selfLink", "no longer populated"},
				{"metadata.uid", "the API server sets it when it creates the object"},
			},
		},
		{
			name: "everything else kept as given",
			doc: `{"metadata":{"name":{"$secret":"web"},"annotations":"$unknown"},"addressType":"IPv4",
				"endpoints":[{"addresses":[{"$secret":"10.0.0.1"},"$unknown"],"conditions":{"ready":true},"extra":1}]}`,
			want: `{"metadata":{"name":{"$secret":"web"},"annotations":"$unknown"},"addressType":"IPv4",
				"endpoints":[{"addresses":[{"$secret":"10.0.0.1"},"$unknown"],"conditions":{"ready":true},"extra":1}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := EndpointSlice(inputs(t, tt.doc), nil, Written{})
			if diff := cmp.Diff(inputs(t, tt.want), r.Inputs, propertytest.Values); diff != "" {
				t.Errorf("inputs (-want +got):\n%s", diff)
			}
			r.Failures = nil // some cases hold failures on purpose; only the warnings matter here
			checkResult(t, r, nil, tt.warnings)
		})
	}
}

func TestEndpointSliceUnknownValues(t *testing.T) {
	t.Parallel()
	docs := []string{
		`{"addressType":"$unknown","endpoints":[{"addresses":["127.0.0.1"]}]}`,
		`{"addressType":"IPv4","endpoints":"$unknown","ports":"$unknown","metadata":"$unknown"}`,
		`{"addressType":"IPv4","endpoints":["$unknown"]}`,
		`{"addressType":"IPv4","endpoints":[{"addresses":"$unknown","hostname":"$unknown","nodeName":"$unknown","hints":"$unknown"}]}`,
		`{"addressType":"IPv4","endpoints":[{"addresses":["$unknown","$unknown"],"hints":{"forZones":["$unknown",{"name":"$unknown"}]}}]}`,
		`{"addressType":"IPv4","endpoints":[],"ports":[{"name":"$unknown"},{"name":"$unknown"},{"port":"$unknown","appProtocol":"$unknown","protocol":"$unknown"}]}`,
		`{"addressType":"IPv4","endpoints":[],"metadata":{"name":"$unknown","generateName":"$unknown","namespace":"$unknown",
			"labels":{"a":"$unknown"},"annotations":{"a":"$unknown"},"finalizers":["$unknown"],"ownerReferences":["$unknown",
			{"apiVersion":"$unknown","kind":"$unknown","name":"$unknown","uid":"$unknown","controller":"$unknown"}]}}`,
		`{"addressType":"$unknown","endpoints":"$unknown","metadata":{"labels":"$unknown","annotations":"$unknown","finalizers":"$unknown","ownerReferences":"$unknown"}}`,
	}
	for _, doc := range docs {
		t.Run(doc, func(t *testing.T) {
			t.Parallel()
			r := EndpointSlice(inputs(t, doc), nil, Written{})
			checkResult(t, r, nil, nil)
		})
	}
}

func TestEndpointSliceSecrets(t *testing.T) {
	t.Parallel()
	r := EndpointSlice(inputs(t, `{"metadata":{"name":{"$secret":"Web"},"labels":{"$secret":{"k":"bad value"}}},
		"addressType":"IPv4","endpoints":[{"addresses":[{"$secret":"127.0.0.1"},{"$secret":"010.0.0.1"}]}],
		"ports":[{"$secret":{"name":"http","port":80}},{"name":{"$secret":"http"}}]}`), Minor(35), Written{})

	checkResult(t, r, []want{
		{"endpoints[0].addresses[0]", "[secret] is a loopback address"},
		{"metadata.labels.k", "label value must be empty or at most 63"},
		{"metadata.name", "must be a DNS subdomain"},
		{"ports[1].name", `ports[0] has the same name`},
	}, []want{
		{"endpoints[0].addresses[1]", "non-standard IP address [secret] is refused from Kubernetes 1.36: use [secret]"},
	})
	all := strings.Join(r.Warnings, "\n")
	for _, f := range r.Failures {
		all += "\n" + f.Reason
	}
	for _, secret := range []string{"Web", "127.0.0.1", "010.0.0.1", "10.0.0.1", "bad value", `"http"`} {
		if strings.Contains(all, secret) {
			t.Errorf("a failure or warning shows the secret %q:\n%s", secret, all)
		}
	}
	// Secrets stay secret in the normalized inputs.
	port0 := r.Inputs.Get("ports").AsArray().Get(0)
	if !port0.Secret() {
		t.Errorf("ports[0] lost its secret marker: %v", port0)
	}
	if got := r.Inputs.Get("metadata").AsMap().Get("name"); !got.Secret() || got.AsString() != "Web" {
		t.Errorf("metadata.name = %v, want the secret \"Web\"", got)
	}
}

func TestEndpointSliceKeepsDependencies(t *testing.T) {
	t.Parallel()
	deps := []urn.URN{"urn:pulumi:dev::proj::kubernetes:core/v1:Service::web"}
	port := property.New(map[string]property.Value{"port": property.New(80.0)}).WithDependencies(deps)
	in := property.NewMap(map[string]property.Value{
		"addressType": property.New("IPv4"),
		"endpoints":   property.New([]property.Value{}),
		"ports":       property.New([]property.Value{port}),
	})
	got := EndpointSlice(in, nil, Written{}).Inputs.Get("ports").AsArray().Get(0)
	wantPort := property.New(map[string]property.Value{
		"port": property.New(80.0), "name": property.New(""), "protocol": property.New("TCP"),
	}).WithDependencies(deps)
	if !got.Equals(wantPort) {
		t.Errorf("ports[0] = %v, want %v", got, wantPort)
	}
	if diff := cmp.Diff(deps, got.Dependencies()); diff != "" {
		t.Errorf("dependencies (-want +got):\n%s", diff)
	}
}
