package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

func TestSchemaRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		kind     string // "slice" or "list"
		doc      string
		failures []want
		warnings []want
	}{
		{
			name: "required input missing",
			kind: "slice", doc: `{"endpoints":[]}`,
			failures: []want{{"addressType", `required property "addressType" of EndpointSlice is missing`}},
		},
		{
			name: "required input null",
			kind: "slice", doc: `{"addressType":null,"endpoints":[]}`,
			failures: []want{{"addressType", `required property "addressType"`}},
		},
		{
			name: "required property of an object type",
			kind: "slice", doc: `{"addressType":"IPv4","endpoints":[{"zone":"a"}]}`,
			failures: []want{{"endpoints[0].addresses", `required property "addresses" of Endpoint is missing`}},
		},
		{
			name: "required list input",
			kind: "list", doc: `{}`,
			failures: []want{{"items", `required property "items" of EndpointsList is missing`}},
		},
		{
			name: "string expected",
			kind: "slice", doc: `{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"zone":7}]}`,
			failures: []want{{"endpoints[0].zone", "must be a string (got a number)"}},
		},
		{
			name: "integer expected",
			kind: "slice", doc: `{"addressType":"IPv4","endpoints":[],"ports":[{"port":"80"}]}`,
			failures: []want{{"ports[0].port", "must be an integer (got a string)"}},
		},
		{
			name: "integer must be integral",
			kind: "slice", doc: `{"addressType":"IPv4","endpoints":[],"ports":[{"port":80.5}]}`,
			failures: []want{{"ports[0].port", "must be an integer (got 80.5)"}},
		},
		{
			name: "secret non-integral number is not shown",
			kind: "slice", doc: `{"addressType":"IPv4","endpoints":[],"ports":[{"port":{"$secret":80.5}}]}`,
			failures: []want{{"ports[0].port", "must be an integer (got [secret])"}},
		},
		{
			name: "boolean expected",
			kind: "slice", doc: `{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":"yes"}}]}`,
			failures: []want{{"endpoints[0].conditions.ready", "must be a boolean (got a string)"}},
		},
		{
			name: "list expected",
			kind: "slice", doc: `{"addressType":"IPv4","endpoints":{"addresses":[]}}`,
			failures: []want{{"endpoints", "must be a list (got an object)"}},
		},
		{
			name: "null list element",
			kind: "slice", doc: `{"addressType":"IPv4","endpoints":[null]}`,
			failures: []want{{"endpoints[0]", "must be an object (Endpoint) (got null)"}},
		},
		{
			name: "null string element",
			kind: "slice", doc: `{"addressType":"IPv4","endpoints":[{"addresses":[null]}]}`,
			failures: []want{{"endpoints[0].addresses[0]", "must be a string (got null)"}},
		},
		{
			name: "string map expected",
			kind: "slice", doc: `{"metadata":{"labels":["a"]},"addressType":"IPv4","endpoints":[]}`,
			failures: []want{{"metadata.labels", "must be an object (got a list)"}},
		},
		{
			name: "string map values",
			kind: "slice", doc: `{"metadata":{"labels":{"a":1,"b":"x"}},"addressType":"IPv4","endpoints":[]}`,
			failures: []want{{"metadata.labels.a", "must be a string (got a number)"}},
		},
		{
			name: "object type expected",
			kind: "slice", doc: `{"metadata":"web","addressType":"IPv4","endpoints":[]}`,
			failures: []want{{"metadata", "must be an object (ObjectMeta; got a string)"}},
		},
		{
			name: "enum value",
			kind: "slice", doc: `{"addressType":"IPv5","endpoints":[]}`,
			failures: []want{{"addressType", `must be one of "IPv4", "IPv6", "FQDN" (got "IPv5")`}},
		},
		{
			name: "enum value in the wrong case",
			kind: "slice", doc: `{"addressType":"ipv6","endpoints":[]}`,
			failures: []want{{"addressType", `(got "ipv6"; values are case-sensitive: use "IPv6")`}},
		},
		{
			name: "enum of the wrong type",
			kind: "slice", doc: `{"addressType":4,"endpoints":[]}`,
			failures: []want{{"addressType", `must be one of "IPv4", "IPv6", "FQDN" (got a number)`}},
		},
		{
			name: "secret enum value is not shown",
			kind: "slice", doc: `{"addressType":{"$secret":"ipv4"},"endpoints":[]}`,
			failures: []want{{"addressType", `must be one of "IPv4", "IPv6", "FQDN" (got a string)`}},
		},
		{
			name: "unknown property with a close name",
			kind: "slice", doc: `{"addressType":"IPv4","endpoints":[{"adresses":["10.0.0.1"],"addresses":["10.0.0.1"]}]}`,
			failures: []want{{"endpoints[0].adresses", `unknown property "adresses" of Endpoint; did you mean "addresses"?`}},
		},
		{
			name: "unknown property in the wrong case",
			kind: "slice", doc: `{"addressType":"IPv4","endpoints":[],"Ports":[]}`,
			failures: []want{{"Ports", `unknown property "Ports" of EndpointSlice; did you mean "ports"?`}},
		},
		{
			name: "unknown property far from every name",
			kind: "slice", doc: `{"addressType":"IPv4","endpoints":[],"somethingElse":1}`,
			failures: []want{{"somethingElse", `unknown property "somethingElse" of EndpointSlice; known properties are "addressType", "endpoints", "metadata", "ports"`}},
		},
		{
			name: "unknown property of a port names the form",
			kind: "list", doc: `{"items":[{"metadata":{"name":"a"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80,"targetPort":80}]}]}]}`,
			failures: []want{{"items[0].subsets[0].ports[0].targetPort", `unknown property "targetPort" of EndpointPort (core form)`}},
		},
		{
			name: "unknown values pass every schema rule",
			kind: "slice", doc: `{"addressType":"$unknown","endpoints":"$unknown","ports":[{"port":"$unknown","protocol":"$unknown"}],"metadata":"$unknown"}`,
		},
		{
			name: "server-tolerated required property warns",
			kind: "slice", doc: `{"addressType":"IPv4"}`,
			warnings: []want{{"endpoints", "required by the schema but not set; the API server accepts it and creates the slice with no endpoints"}},
		},
		{
			name: "server-tolerated required property of a type warns",
			kind: "slice", doc: `{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"hints":{"forZones":[{}]}}]}`,
			warnings: []want{{"endpoints[0].hints.forZones[0].name", "required by the schema but not set; the API server accepts it and stores the zone hint"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var r Result
			if tt.kind == "slice" {
				r = EndpointSlice(inputs(t, tt.doc), nil, Written{})
			} else {
				r = EndpointsList(inputs(t, tt.doc), "", nil, Written{})
			}
			checkResult(t, r, tt.failures, tt.warnings)
		})
	}
}

func TestAnyAcceptsAnything(t *testing.T) {
	t.Parallel()
	for _, v := range []property.Value{
		property.New("x"), property.New(1.5), property.New(true), property.New(property.Null),
		property.New([]property.Value{property.New("a")}),
		property.New(map[string]property.Value{"f:metadata": property.New(map[string]property.Value{})}),
	} {
		c := &checker{}
		w := walker{checker: c, pkg: spec.MustLoad()}
		got, changed := w.value(path{}.key("fieldsV1"), spec.Property{Ref: anyRef}, v, false)
		if len(c.failures) > 0 || changed || !got.Equals(v) {
			t.Errorf("value %v: failures %v, changed %v, got %v", v, c.failures, changed, got)
		}
	}
}

// TestSchemaReferencesResolve checks that every type the two resources reach is
// declared, so that the walk never reports an internal error.
func TestSchemaReferencesResolve(t *testing.T) {
	t.Parallel()
	pkg := spec.MustLoad()
	seen := map[string]bool{}
	var visit func(where string, p spec.Property)
	visit = func(where string, p spec.Property) {
		if p.Items != nil {
			visit(where+"[]", *p.Items)
		}
		if p.AdditionalProperties != nil {
			visit(where+"{}", *p.AdditionalProperties)
		}
		token, ok := strings.CutPrefix(p.Ref, "#/types/")
		if !ok || seen[token] {
			return
		}
		seen[token] = true
		typ, ok := pkg.Types[token]
		if !ok {
			t.Errorf("%s refers to %s, which schema.json does not declare", where, token)
			return
		}
		for k, prop := range typ.Properties {
			visit(token+"."+k, prop)
		}
	}
	for _, token := range []string{sliceResource, endpointsListResource} {
		res, ok := pkg.Resources[token]
		if !ok {
			t.Fatalf("schema.json does not declare %s", token)
		}
		for k, prop := range res.InputProperties {
			visit(token+"."+k, prop)
		}
	}
	// Every token the rules name must be one the schema declares.
	for _, token := range []string{objectMetaType, listMetaType, sliceEndpointType, sliceEndpointPortType,
		forZoneType, coreEndpointPortType} {
		if !seen[token] {
			t.Errorf("the rules name %s, which the resources do not reach", token)
		}
	}
	for table, entries := range map[string]map[string]map[string]string{
		"droppedFields": droppedFields, "serverOptional": serverOptional, "emptyIsUnset": emptyIsUnset,
	} {
		for token, props := range entries {
			var declared map[string]spec.Property
			if res, ok := pkg.Resources[token]; ok {
				declared = res.InputProperties
			} else {
				declared = pkg.Types[token].Properties
			}
			for k := range props {
				if _, ok := declared[k]; !ok {
					t.Errorf("%s names %s.%s, which schema.json does not declare", table, token, k)
				}
			}
		}
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"adresses", "addresses", 1}, {"kitten", "sitting", 3},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	if diff := cmp.Diff(`unknown property "zne" of Endpoint; did you mean "zone"?`,
		unknownProperty("zne", "Endpoint", []string{"zone", "nodeName", "hostname"})); diff != "" {
		t.Errorf("unknownProperty (-want +got):\n%s", diff)
	}
}

// TestWalkerDefensivePaths covers what the provider's schema does not use today:
// "number" properties, and references or tokens that the schema does not declare.
func TestWalkerDefensivePaths(t *testing.T) {
	t.Parallel()
	pkg := &spec.Package{
		Types: map[string]spec.Type{},
		Resources: map[string]spec.Resource{
			"test:index:Res": {InputProperties: map[string]spec.Property{
				"ratio":   {Type: "number"},
				"missing": {Ref: "#/types/test:index:Missing"},
			}},
		},
	}
	c := &checker{}
	w := walker{checker: c, pkg: pkg}
	w.resource("test:index:Res", inputs(t, `{"ratio":1.5}`))
	w.resource("test:index:Res", inputs(t, `{"ratio":"1.5","missing":{}}`))
	w.resource("test:index:Nope", inputs(t, `{}`))
	checkResult(t, c.result(property.Map{}), []want{
		{"", "internal error: the provider's schema does not declare test:index:Nope"},
		{"missing", "internal error: the provider's schema does not declare type test:index:Missing"},
		{"ratio", "must be a number (got a string)"},
	}, nil)
}
