package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/propertytest"
)

// oneSubset is a list with one item whose only subset is given.
func oneSubset(subset string) string {
	return `{"items":[{"metadata":{"name":"web"},"subsets":[` + subset + `]}]}`
}

// withAddress is a list with one item whose subset holds one ready address.
func withAddress(address string) string {
	return oneSubset(`{"addresses":[` + address + `]}`)
}

// withCorePorts is a list with one item whose subset holds one address and ports.
func withCorePorts(ports string) string {
	return oneSubset(`{"addresses":[{"ip":"10.0.0.1"}],"ports":[` + ports + `]}`)
}

func TestEndpointsListRules(t *testing.T) {
	t.Parallel()
	const ip0 = "items[0].subsets[0].addresses[0].ip"
	const port0 = "items[0].subsets[0].ports[0]"
	tests := []struct {
		name     string
		minor    int // the server's minor; 0: Newest
		doc      string
		failures []want
		warnings []want
	}{
		{name: "empty items manage nothing", doc: `{"items":[]}`},
		{name: "item without subsets", doc: `{"items":[{"metadata":{"name":"web"}}]}`},
		{
			name:     "item without metadata",
			doc:      `{"items":[{}]}`,
			failures: []want{{"items[0].metadata.name", "required: an item's name is its identity in the set; set metadata.name, or metadata.generateName to have the provider pick a name once and keep it"}},
		},
		{name: "item whose metadata is not known yet", doc: `{"items":[{"metadata":"$unknown"}]}`},
		{name: "item whose name is not known yet", doc: `{"items":[{"metadata":{"name":"$unknown"}}]}`},
		{
			name:     "items missing",
			doc:      `{"metadata":{}}`,
			failures: []want{{"items", `required property "items" of EndpointsList is missing`}},
		},
		{
			name:     "items not a list",
			doc:      `{"items":{"metadata":{"name":"web"}}}`,
			failures: []want{{"items", "must be a list (got an object)"}},
		},
		{
			name: "list metadata dropped",
			doc:  `{"metadata":{"resourceVersion":"1","continue":"c","remainingItemCount":2,"selfLink":"/x"},"items":[]}`,
			warnings: []want{
				{"metadata.continue", "a paging token"},
				{"metadata.remainingItemCount", "paged lists"},
				{"metadata.resourceVersion", "the API server sets it on lists"},
				{"metadata.selfLink", "no longer populated"},
			},
		},

		// Subsets.
		{
			name:     "subset without addresses",
			doc:      oneSubset(`{"ports":[{"port":80}]}`),
			failures: []want{{"items[0].subsets[0]", "a subset needs at least one address, in addresses or notReadyAddresses"}},
		},
		{
			name:     "subset with empty address lists",
			doc:      oneSubset(`{"addresses":[],"notReadyAddresses":null}`),
			failures: []want{{"items[0].subsets[0]", "a subset needs at least one address"}},
		},
		{name: "subset with only not-ready addresses", doc: oneSubset(`{"notReadyAddresses":[{"ip":"10.0.0.1"}]}`)},
		{name: "subset without ports", doc: withAddress(`{"ip":"10.0.0.1"}`)},
		{name: "subset with unknown addresses", doc: oneSubset(`{"addresses":"$unknown"}`)},
		{
			name: "address both ready and not ready warns",
			doc:  oneSubset(`{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}],"notReadyAddresses":[{"ip":"10.0.0.2"}]}`),
			warnings: []want{{"items[0].subsets[0].notReadyAddresses[0].ip",
				"10.0.0.2 is also listed as ready (addresses[1]) in this subset; the specification says an address is never both ready and not ready (the API server accepts it)"}},
		},
		{
			name: "address both ready and not ready, spelled differently",
			doc:  oneSubset(`{"addresses":[{"ip":"2001:db8::1"}],"notReadyAddresses":[{"ip":"2001:DB8:0::1"}]}`),
			warnings: []want{
				{"items[0].subsets[0].notReadyAddresses[0].ip", "2001:db8::1 is also listed as ready (addresses[0])"},
				{"items[0].subsets[0].notReadyAddresses[0].ip", "IPv6 address \"2001:DB8:0::1\" should be in RFC 5952 canonical form"},
			},
		},
		{
			name: "same address in two subsets is fine",
			doc: `{"items":[{"metadata":{"name":"web"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}]},` +
				`{"notReadyAddresses":[{"ip":"10.0.0.1"}]}]}]}`,
		},

		// Addresses.
		{name: "IPv4", doc: withAddress(`{"ip":"10.0.0.1"}`)},
		{name: "IPv6", doc: withAddress(`{"ip":"2001:db8::1"}`)},
		{
			name:     "leading zeros warn before 1.36",
			minor:    35,
			doc:      withAddress(`{"ip":"010.0.0.1"}`),
			warnings: []want{{ip0, `non-standard IP address "010.0.0.1" is refused from Kubernetes 1.36: use "10.0.0.1"`}},
		},
		{
			name:     "leading zeros are refused from 1.36",
			doc:      withAddress(`{"ip":"010.0.0.1"}`),
			failures: []want{{ip0, `010.0.0.1 must not have leading zeros in its octets (Kubernetes 1.37 refuses them): use "10.0.0.1"`}},
		},
		{
			name:     "IPv4-mapped IPv6 is refused from 1.36",
			minor:    36,
			doc:      withAddress(`{"ip":"::ffff:10.0.0.1"}`),
			failures: []want{{ip0, `must not be an IPv4-mapped IPv6 address (Kubernetes 1.36 refuses them)`}},
		},
		{
			name:     "IPv4-mapped IPv6 warns on 1.32",
			minor:    OldestMinor,
			doc:      withAddress(`{"ip":"::ffff:10.0.0.1"}`),
			warnings: []want{{ip0, `non-standard IP address "::ffff:10.0.0.1" is refused from Kubernetes 1.36`}},
		},
		{
			name:     "non-canonical IPv6 warns",
			doc:      withAddress(`{"ip":"2001:DB8::1"}`),
			warnings: []want{{ip0, `IPv6 address "2001:DB8::1" should be in RFC 5952 canonical form ("2001:db8::1")`}},
		},
		{name: "loopback", doc: withAddress(`{"ip":"127.0.0.1"}`), failures: []want{{ip0, "127.0.0.1 is a loopback address"}}},
		{name: "IPv6 loopback", doc: withAddress(`{"ip":"::1"}`), failures: []want{{ip0, "::1 is a loopback address"}}},
		{name: "link-local", doc: withAddress(`{"ip":"169.254.0.1"}`), failures: []want{{ip0, "is a link-local address"}}},
		{name: "IPv6 link-local", doc: withAddress(`{"ip":"fe80::1"}`), failures: []want{{ip0, "is a link-local address"}}},
		{name: "link-local multicast", doc: withAddress(`{"ip":"224.0.0.251"}`), failures: []want{{ip0, "is a link-local multicast address"}}},
		{name: "IPv6 link-local multicast", doc: withAddress(`{"ip":"ff02::fb"}`), failures: []want{{ip0, "is a link-local multicast address"}}},
		{name: "unspecified", doc: withAddress(`{"ip":"0.0.0.0"}`), failures: []want{{ip0, "is the unspecified address"}}},
		{name: "IPv6 unspecified", doc: withAddress(`{"ip":"::"}`), failures: []want{{ip0, "is the unspecified address"}}},
		{name: "not an IP", doc: withAddress(`{"ip":"web"}`), failures: []want{{ip0, `"web" is not a valid IP address`}}},
		{name: "ip missing", doc: withAddress(`{}`), failures: []want{{ip0, `required property "ip" of EndpointAddress is missing`}}},
		{
			name:     "not-ready addresses are checked too",
			doc:      oneSubset(`{"notReadyAddresses":[{"ip":"127.0.0.1"}]}`),
			failures: []want{{"items[0].subsets[0].notReadyAddresses[0].ip", "is a loopback address"}},
		},
		{name: "hostname", doc: withAddress(`{"ip":"10.0.0.1","hostname":"web-0"}`)},
		{name: "hostname empty", doc: withAddress(`{"ip":"10.0.0.1","hostname":""}`)},
		{
			name:     "hostname uppercase",
			doc:      withAddress(`{"ip":"10.0.0.1","hostname":"Web"}`),
			failures: []want{{"items[0].subsets[0].addresses[0].hostname", "must be a DNS label"}},
		},
		{
			name:     "nodeName empty",
			doc:      withAddress(`{"ip":"10.0.0.1","nodeName":""}`),
			failures: []want{{"items[0].subsets[0].addresses[0].nodeName", "must be a DNS subdomain"}},
		},

		// Ports.
		{name: "single unnamed port", doc: withCorePorts(`{"port":80}`)},
		{name: "two named ports", doc: withCorePorts(`{"name":"a","port":80},{"name":"b","port":81}`)},
		{
			name: "two unnamed ports",
			doc:  withCorePorts(`{"port":80},{"port":81}`),
			failures: []want{
				{port0 + ".name", "a port name is required when the subset has more than one port"},
				{"items[0].subsets[0].ports[1].name", "a port name is required"},
			},
		},
		{
			name:     "empty name among two ports",
			doc:      withCorePorts(`{"name":"a","port":80},{"name":"","port":81}`),
			failures: []want{{"items[0].subsets[0].ports[1].name", "a port name is required"}},
		},
		{
			name:     "duplicate port names warn",
			doc:      withCorePorts(`{"name":"a","port":80},{"name":"a","port":81}`),
			warnings: []want{{"items[0].subsets[0].ports[1].name", "ports[0] of this subset has the same name; names should tell the ports apart (the API server accepts it)"}},
		},
		{
			name:     "port name uppercase",
			doc:      withCorePorts(`{"name":"HTTP","port":80}`),
			failures: []want{{port0 + ".name", "port name must be a DNS label"}},
		},
		{name: "port 1", doc: withCorePorts(`{"port":1}`)},
		{name: "port 65535", doc: withCorePorts(`{"port":65535}`)},
		{name: "port 0", doc: withCorePorts(`{"port":0}`), failures: []want{{port0 + ".port", "must be a port number between 1 and 65535 (got 0)"}}},
		{name: "port 65536", doc: withCorePorts(`{"port":65536}`), failures: []want{{port0 + ".port", "(got 65536)"}}},
		{name: "port huge", doc: withCorePorts(`{"port":1e10}`), failures: []want{{port0 + ".port", "(got 10000000000)"}}},
		{name: "port missing", doc: withCorePorts(`{"name":"a"}`), failures: []want{{port0 + ".port", `required property "port" of EndpointPort (core form) is missing`}}},
		{
			name:     "protocol enum",
			doc:      withCorePorts(`{"port":80,"protocol":"udp"}`),
			failures: []want{{port0 + ".protocol", `values are case-sensitive: use "UDP"`}},
		},
		{
			name:     "empty protocol means TCP (as on the server)",
			doc:      withCorePorts(`{"port":80,"protocol":""}`),
			warnings: []want{{port0 + ".protocol", "the API server reads an empty protocol as unset and applies the default, TCP"}},
		},
		{
			name:     "appProtocol",
			doc:      withCorePorts(`{"port":80,"appProtocol":"Bad Proto"}`),
			failures: []want{{port0 + ".appProtocol", "must be a qualified name"}},
		},

		// Identity.
		{name: "distinct items", doc: `{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`},
		{name: "same name, other namespace", doc: `{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a","namespace":"other"}}]}`},
		{
			name:     "items without names",
			doc:      `{"items":[{},{"metadata":{"generateName":"a-"}},{"metadata":{"generateName":"a-"}}]}`,
			failures: []want{{"items[0].metadata.name", "required: an item's name is its identity in the set; set metadata.name, or metadata.generateName to have the provider pick a name once and keep it"}},
		},
		{
			name: "same name twice",
			doc:  `{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}},{"metadata":{"name":"a"}}]}`,
			failures: []want{{"items[2].metadata.name",
				"items[0] and items[2] both name the Endpoints object default/a; each item must manage a different object"}},
		},
		{
			name:     "unset namespace is default",
			doc:      `{"items":[{"metadata":{"name":"a","namespace":"default"}},{"metadata":{"name":"a","namespace":""}}]}`,
			failures: []want{{"items[1].metadata.name", "items[0] and items[1] both name the Endpoints object default/a"}},
		},
		{
			name:     "three times",
			doc:      `{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a"}},{"metadata":{"name":"a"}}]}`,
			failures: []want{{"items[1].metadata.name", "items[0] and items[1]"}, {"items[2].metadata.name", "items[0] and items[2]"}},
		},
		{
			name:     "secret names are not shown",
			doc:      `{"items":[{"metadata":{"name":{"$secret":"a"}}},{"metadata":{"name":"a"}}]}`,
			failures: []want{{"items[1].metadata.name", "both name the Endpoints object [secret]"}},
		},
		{name: "unknown names are skipped", doc: `{"items":[{"metadata":{"name":"$unknown"}},{"metadata":{"name":"$unknown"}}]}`},
		{name: "unknown namespaces are skipped", doc: `{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a","namespace":"$unknown"}}]}`},
		{name: "unknown items", doc: `{"items":"$unknown"}`},
		{name: "unknown item", doc: `{"items":["$unknown",{"metadata":"$unknown","subsets":"$unknown"}]}`},
		{
			name: "unknown values in a subset",
			doc: oneSubset(`{"addresses":[{"ip":"$unknown","hostname":"$unknown","nodeName":"$unknown"}],"notReadyAddresses":["$unknown"],` +
				`"ports":[{"port":"$unknown","name":"$unknown"},{"port":80,"name":"$unknown"}]}`),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkResult(t, EndpointsList(inputs(t, tt.doc), "", minorOr(tt.minor), Written{}), tt.failures, tt.warnings)
		})
	}
}

func TestEndpointsListNamespace(t *testing.T) {
	t.Parallel()
	doc := `{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a","namespace":"prod"}},{"metadata":{"name":"a","namespace":"default"}}]}`
	checkResult(t, EndpointsList(inputs(t, doc), "prod", nil, Written{}), []want{
		{"items[1].metadata.name", "items[0] and items[1] both name the Endpoints object prod/a"},
	}, nil)
	checkResult(t, EndpointsList(inputs(t, doc), "", nil, Written{}), []want{
		{"items[2].metadata.name", "items[0] and items[2] both name the Endpoints object default/a"},
	}, nil)
}

func TestEndpointsListNormalizes(t *testing.T) {
	t.Parallel()
	r := EndpointsList(inputs(t, `{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"a","uid":"u"},
		"subsets":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80},{"name":"x","port":81,"protocol":""},
		{"$secret":{"name":"y","port":82}}]}]}]}`), "", nil, Written{})

	wantInputs := inputs(t, `{"metadata":{},"items":[{"metadata":{"name":"a"},
		"subsets":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80,"protocol":"TCP"},{"name":"x","port":81,"protocol":"TCP"},
		{"$secret":{"name":"y","port":82,"protocol":"TCP"}}]}]}]}`)
	if diff := cmp.Diff(wantInputs, r.Inputs, propertytest.Values); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	checkResult(t, r, []want{{"items[0].subsets[0].ports[0].name", "a port name is required"}}, []want{
		{"items[0].metadata.uid", "the API server sets it"},
		{"items[0].subsets[0].ports[1].protocol", "empty protocol"},
		{"metadata.resourceVersion", "the API server sets it on lists"},
	})
}

func TestEndpointsListManyItems(t *testing.T) {
	t.Parallel()
	items := make([]string, 500)
	for i := range items {
		items[i] = fmt.Sprintf(`{"metadata":{"name":"ep-%d"},"subsets":[{"addresses":[{"ip":"10.0.%d.%d"}],"ports":[{"port":80}]}]}`,
			i, i/250, i%250+1)
	}
	r := EndpointsList(inputs(t, `{"items":[`+strings.Join(items, ",")+`]}`), "", nil, Written{})
	checkResult(t, r, nil, nil)
}
