package differential_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The hand-written corpus: edge cases for every rule, at and around each boundary.
// Each case documents what the API server does with it (accept, accept while Check
// warns, reject): one verdict for every minor of the window, or, for the rules that
// differ by minor (provider/validate/minors.go), a fromMinor that gives each minor's;
// the differential test checks both Check and each server against the verdict of
// that server's minor.

// corpus collects cases.
type corpus struct {
	tb    testing.TB
	cases []testCase
}

// slice adds an EndpointSlice case from the JSON of its inputs. Unless the inputs
// set metadata.name or metadata.generateName, the slice is named "diff-slice".
func (c *corpus) slice(w expectation, name, doc string) {
	c.tb.Helper()
	c.sliceObj(w, name, decodeJSON(c.tb, doc))
}

func (c *corpus) sliceObj(w expectation, name string, obj map[string]any) {
	ensureName(obj, "diff-slice")
	c.cases = append(c.cases, testCase{name: name, kind: sliceKind, inputs: fromPlain(obj).AsMap(), want: w})
}

// sliceAs adds an EndpointSlice case whose inputs are taken as they are (no name is
// added: a slice without name and generateName is autonamed), for the resource name
// logical ("" for the default), checked by the provider configured as v.
func (c *corpus) sliceAs(w expectation, name, logical string, v variant, doc string) {
	c.tb.Helper()
	c.cases = append(c.cases, testCase{name: name, kind: sliceKind, inputs: fromPlain(decodeJSON(c.tb, doc)).AsMap(),
		want: w, logical: logical, variant: v})
}

// listAs adds an EndpointsList case whose items are taken as they are (no name is
// added), checked by the provider configured as v.
func (c *corpus) listAs(w expectation, name string, v variant, doc string) {
	c.tb.Helper()
	c.cases = append(c.cases, testCase{name: name, kind: listKind, inputs: fromPlain(decodeJSON(c.tb, doc)).AsMap(),
		want: w, variant: v})
}

// list adds an EndpointsList case from the JSON of its inputs. Items that set
// neither metadata.name nor metadata.generateName are named "diff-ep-<index>".
func (c *corpus) list(w expectation, name, doc string) {
	c.tb.Helper()
	c.listObj(w, name, decodeJSON(c.tb, doc))
}

func (c *corpus) listObj(w expectation, name string, obj map[string]any) {
	if items, ok := obj["items"].([]any); ok {
		for i, item := range items {
			if item, ok := item.(map[string]any); ok {
				ensureName(item, fmt.Sprintf("diff-ep-%d", i))
			}
		}
	}
	c.cases = append(c.cases, testCase{name: name, kind: listKind, inputs: fromPlain(obj).AsMap(), want: w})
}

// ensureName sets metadata.name of obj unless it sets a name or generateName.
func ensureName(obj map[string]any, name string) {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		if _, present := obj["metadata"]; present {
			return
		}
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	_, hasName := meta["name"]
	_, hasGenerateName := meta["generateName"]
	if !hasName && !hasGenerateName {
		meta["name"] = name
	}
}

// q is a JSON string literal.
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Slice templates.
func v4(addr string) string {
	return fmt.Sprintf(`{"addressType":"IPv4","endpoints":[{"addresses":[%s]}]}`, q(addr))
}

func v6(addr string) string {
	return fmt.Sprintf(`{"addressType":"IPv6","endpoints":[{"addresses":[%s]}]}`, q(addr))
}

func fqdn(addr string) string {
	return fmt.Sprintf(`{"addressType":"FQDN","endpoints":[{"addresses":[%s]}]}`, q(addr))
}

// endpoint is an IPv4 slice with one endpoint that has the extra properties fields.
func endpoint(fields string) string {
	return fmt.Sprintf(`{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],%s}]}`, fields)
}

// slicePorts is an IPv4 slice without endpoints and with the ports given.
func slicePorts(ports string) string {
	return fmt.Sprintf(`{"addressType":"IPv4","endpoints":[],"ports":%s}`, ports)
}

// sliceMeta is an IPv4 slice without endpoints and with the metadata given.
func sliceMeta(meta string) string {
	return fmt.Sprintf(`{"metadata":%s,"addressType":"IPv4","endpoints":[]}`, meta)
}

// List templates.
func listAddress(address string) string {
	return fmt.Sprintf(`{"items":[{"metadata":{"name":"web"},"subsets":[{"addresses":[%s]}]}]}`, address)
}

func listIP(ip string) string { return listAddress(fmt.Sprintf(`{"ip":%s}`, q(ip))) }

func listSubsets(subsets string) string {
	return fmt.Sprintf(`{"items":[{"metadata":{"name":"web"},"subsets":%s}]}`, subsets)
}

func listPorts(ports string) string {
	return listSubsets(fmt.Sprintf(`[{"addresses":[{"ip":"10.0.0.1"}],"ports":%s}]`, ports))
}

func listMeta(meta string) string {
	return fmt.Sprintf(`{"items":[{"metadata":%s,"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]}]}`, meta)
}

// repeat returns n copies of s joined by commas, each with %d replaced by its index.
func repeat(n int, s string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strings.ReplaceAll(s, "%d", fmt.Sprint(i))
	}
	return strings.Join(parts, ",")
}

func handWrittenCases(tb testing.TB) []testCase {
	c := &corpus{tb: tb}
	sliceSchemaCases(c)
	sliceAddressCases(c)
	sliceEndpointCases(c)
	slicePortCases(c)
	forNodesCases(c)
	nonStandardIPCases(c)
	metadataCases(c)
	listCases(c)
	itemNameCases(c)
	namespaceDefaultCases(c)
	autonameCases(c)
	checkExpectations(tb, c.cases)
	return c.cases
}

func sliceSchemaCases(c *corpus) {
	c.slice(accept, "minimal IPv4 slice", v4("10.0.0.1"))
	c.slice(reject, "addressType missing", `{"endpoints":[]}`)
	c.slice(reject, "addressType in the wrong case", `{"addressType":"ipv4","endpoints":[]}`)
	c.slice(reject, "addressType not an enum value", `{"addressType":"IPv5","endpoints":[]}`)
	c.slice(reject, "addressType a number", `{"addressType":4,"endpoints":[]}`)
	c.slice(acceptWarn, "endpoints missing (the server accepts it)", `{"addressType":"IPv4"}`)
	c.slice(accept, "endpoints empty", `{"addressType":"IPv4","endpoints":[]}`)
	c.slice(reject, "endpoints a string", `{"addressType":"IPv4","endpoints":"10.0.0.1"}`)
	c.slice(reject, "endpoints an object", `{"addressType":"IPv4","endpoints":{"addresses":["10.0.0.1"]}}`)
	c.slice(reject, "unknown top-level property", `{"addressType":"IPv4","endpoints":[],"adressType":"IPv4"}`)
	c.slice(reject, "unknown endpoint property", `{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"adresses":["10.0.0.2"]}]}`)
	c.slice(reject, "property name in the wrong case", `{"addressType":"IPv4","endpoints":[{"Addresses":["10.0.0.1"]}]}`)
	c.slice(reject, "endpoint without addresses", `{"addressType":"IPv4","endpoints":[{"zone":"a"}]}`)
	c.slice(reject, "endpoint with empty addresses", `{"addressType":"IPv4","endpoints":[{"addresses":[]}]}`)
	c.slice(reject, "address a number", `{"addressType":"IPv4","endpoints":[{"addresses":[10]}]}`)
	c.slice(reject, "addresses a string", `{"addressType":"IPv4","endpoints":[{"addresses":"10.0.0.1"}]}`)
	c.slice(accept, "100 addresses in an endpoint", fmt.Sprintf(`{"addressType":"IPv4","endpoints":[{"addresses":[%s]}]}`,
		repeat(100, `"10.0.1.%d"`)))
	c.slice(reject, "101 addresses in an endpoint", fmt.Sprintf(`{"addressType":"IPv4","endpoints":[{"addresses":[%s]}]}`,
		repeat(101, `"10.0.1.%d"`)))
	c.slice(accept, "1000 endpoints", fmt.Sprintf(`{"addressType":"IPv4","endpoints":[%s]}`,
		repeat(1000, `{"addresses":["10.1.0.1"]}`)))
	c.slice(reject, "1001 endpoints", fmt.Sprintf(`{"addressType":"IPv4","endpoints":[%s]}`,
		repeat(1001, `{"addresses":["10.1.0.1"]}`)))
	c.slice(reject, "1001 endpoints, all otherwise valid, with an invalid one", fmt.Sprintf(
		`{"addressType":"IPv4","endpoints":[%s,{"addresses":["127.0.0.1"]}]}`, repeat(1000, `{"addresses":["10.1.0.1"]}`)))
}

func sliceAddressCases(c *corpus) {
	for _, a := range []string{"10.0.0.1", "192.168.255.255", "100.64.0.1", "224.0.1.1", "239.255.255.250",
		"255.255.255.255", "1.1.1.1", "172.16.0.0"} {
		c.slice(accept, "IPv4 "+a, v4(a))
	}
	for _, a := range []string{"010.0.0.1", "10.000.0.1", "::ffff:10.0.0.1"} {
		c.slice(nonStandardIPv4, "non-standard IPv4 "+a, v4(a))
	}
	for _, a := range []string{"127.0.0.1", "127.255.255.254", "169.254.0.1", "169.254.255.255", "224.0.0.1",
		"224.0.0.255", "0.0.0.0", "::ffff:127.0.0.1", "2001:db8::1", "::1", "10.0.0", "10.0.0.256", "", " 10.0.0.1",
		"10.0.0.1/24", "1.2.3.4:80", "example.com", "10.0.0.1.", "0x0a.0.0.1"} {
		c.slice(reject, "IPv4 slice with "+q(a), v4(a))
	}
	for _, a := range []string{"2001:db8::1", "fd00::1", "fec0::1", "ff05::1", "2001:db8:0:1::", "64:ff9b::102:304",
		"2001:db8::ffff:0:1"} {
		c.slice(accept, "IPv6 "+a, v6(a))
	}
	for _, a := range []string{"2001:DB8::1", "2001:db8:0:0:0:0:0:1", "2001:db8::01", "64:ff9b::1.2.3.4"} {
		c.slice(nonCanonicalIPv6Slice, "non-canonical IPv6 "+a, v6(a))
	}
	for _, a := range []string{"::1", "fe80::1", "febf::1", "ff02::1", "ff12::1", "ff32::1", "::", "1.2.3.4",
		"::ffff:1.2.3.4", "fe80::1%eth0", "010.0.0.1", "2001:db8::1/64", "[2001:db8::1]", "2001:db8::g"} {
		c.slice(reject, "IPv6 slice with "+q(a), v6(a))
	}
	for _, a := range []string{"example.com", "example.com.", "a.b", "web-0.svc.cluster.local", "10.0.0.1",
		"xn--bcher-kva.example", strings.Repeat("a", 63) + ".com",
		strings.Repeat(strings.Repeat("a", 62)+".", 4) + "a"} {
		c.slice(acceptWarn, "FQDN "+abbreviate(a), fqdn(a))
	}
	for _, a := range []string{"example", "Example.com", "a_b.com", strings.Repeat("a", 64) + ".com", "-a.com", "a-.com",
		"a..com", "*.example.com", "", ".", "example.com..", "exa mple.com",
		strings.Repeat(strings.Repeat("a", 62)+".", 4) + "ab"} {
		c.slice(reject, "FQDN slice with "+q(abbreviate(a)), fqdn(a))
	}
	c.slice(reject, "second address of an endpoint invalid",
		`{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1","169.254.169.254"]}]}`)
	c.slice(reject, "mixed address types in an IPv4 slice",
		`{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]},{"addresses":["2001:db8::1"]}]}`)
}

func sliceEndpointCases(c *corpus) {
	c.slice(accept, "all endpoint properties", endpoint(`"conditions":{"ready":true,"serving":true,"terminating":false},`+
		`"hostname":"web-0","nodeName":"node-1","zone":"us-east-1a",`+
		`"targetRef":{"apiVersion":"v1","kind":"Pod","name":"web-0","namespace":"default","uid":"0f7e","resourceVersion":"12","fieldPath":"spec.containers{web}"},`+
		`"hints":{"forZones":[{"name":"us-east-1a"}]}`))
	c.slice(reject, "condition not a boolean", endpoint(`"conditions":{"ready":"true"}`))
	c.slice(reject, "unknown condition", endpoint(`"conditions":{"healthy":true}`))
	c.slice(accept, "conditions empty", endpoint(`"conditions":{}`))
	c.slice(accept, "hostname a DNS label", endpoint(`"hostname":"web-0"`))
	c.slice(accept, "hostname of 63 characters", endpoint(`"hostname":`+q(strings.Repeat("h", 63))))
	c.slice(reject, "hostname of 64 characters", endpoint(`"hostname":`+q(strings.Repeat("h", 64))))
	c.slice(reject, "hostname with uppercase", endpoint(`"hostname":"Web-0"`))
	c.slice(reject, "hostname with a dot", endpoint(`"hostname":"web.0"`))
	c.slice(reject, "hostname empty", endpoint(`"hostname":""`))
	c.slice(reject, "hostname ending in '-'", endpoint(`"hostname":"web-"`))
	c.slice(accept, "hostname all digits", endpoint(`"hostname":"0123"`))
	c.slice(reject, "hostname a number", endpoint(`"hostname":7`))
	c.slice(accept, "nodeName a DNS subdomain", endpoint(`"nodeName":"ip-10-0-0-1.ec2.internal"`))
	c.slice(accept, "nodeName of 253 characters", endpoint(`"nodeName":`+q(strings.Repeat(strings.Repeat("n", 62)+".", 4)+"n")))
	c.slice(reject, "nodeName of 254 characters", endpoint(`"nodeName":`+q(strings.Repeat(strings.Repeat("n", 62)+".", 4)+"nn")))
	c.slice(reject, "nodeName with uppercase", endpoint(`"nodeName":"Node-1"`))
	c.slice(reject, "nodeName with an underscore", endpoint(`"nodeName":"node_1"`))
	c.slice(reject, "nodeName empty", endpoint(`"nodeName":""`))
	c.slice(accept, "zone anything (the server does not check it)", endpoint(`"zone":"Any Zone! /x"`))
	c.slice(accept, "zone empty", endpoint(`"zone":""`))
	c.slice(reject, "zone a boolean", endpoint(`"zone":true`))
	c.slice(accept, "targetRef anything", endpoint(`"targetRef":{"kind":"not a kind","name":"UPPER CASE","namespace":"_"}`))
	c.slice(reject, "targetRef unknown property", endpoint(`"targetRef":{"kind":"Pod","podName":"x"}`))
	c.slice(reject, "targetRef a string", endpoint(`"targetRef":"pod/web-0"`))
	c.slice(accept, "8 zone hints", endpoint(`"hints":{"forZones":[`+repeat(8, `{"name":"zone-%d"}`)+`]}`))
	c.slice(reject, "9 zone hints", endpoint(`"hints":{"forZones":[`+repeat(9, `{"name":"zone-%d"}`)+`]}`))
	c.slice(reject, "duplicate zone hints", endpoint(`"hints":{"forZones":[{"name":"a"},{"name":"a"}]}`))
	c.slice(reject, "zone hint not a label value", endpoint(`"hints":{"forZones":[{"name":"us east"}]}`))
	c.slice(accept, "zone hint of 63 characters", endpoint(`"hints":{"forZones":[{"name":`+q(strings.Repeat("z", 63))+`}]}`))
	c.slice(reject, "zone hint of 64 characters", endpoint(`"hints":{"forZones":[{"name":`+q(strings.Repeat("z", 64))+`}]}`))
	c.slice(accept, "zone hint with uppercase and '_'", endpoint(`"hints":{"forZones":[{"name":"Zone_A.1"}]}`))
	c.slice(accept, "zone hint with an empty name", endpoint(`"hints":{"forZones":[{"name":""}]}`))
	c.slice(acceptWarn, "zone hint without a name (the server accepts it)", endpoint(`"hints":{"forZones":[{}]}`))
	c.slice(reject, "two zone hints without a name", endpoint(`"hints":{"forZones":[{},{}]}`))
	c.slice(reject, "zone hint with an unknown property", endpoint(`"hints":{"forZones":[{"zone":"a"}]}`))
	c.slice(accept, "hints empty", endpoint(`"hints":{}`))
	c.slice(acceptWarn, "deprecatedTopology (dropped)", endpoint(`"deprecatedTopology":{"kubernetes.io/hostname":"node-1"}`))
	c.slice(acceptWarn, "deprecatedTopology invalid (dropped before validation)",
		endpoint(`"deprecatedTopology":{"bad key!":"bad value!","topology.kubernetes.io/zone":"a"}`))
	c.slice(acceptWarn, "deprecatedTopology of the wrong type (dropped)", endpoint(`"deprecatedTopology":"x"`))
}

func slicePortCases(c *corpus) {
	c.slice(accept, "port with every property", slicePorts(`[{"name":"http","port":80,"protocol":"TCP","appProtocol":"http"}]`))
	c.slice(accept, "port with defaults", slicePorts(`[{"port":80}]`))
	c.slice(accept, "port without a number (all ports)", slicePorts(`[{"name":"all"}]`))
	c.slice(accept, "ports empty", slicePorts(`[]`))
	c.slice(accept, "UDP and SCTP ports", slicePorts(`[{"name":"dns","port":53,"protocol":"UDP"},{"name":"s","port":9,"protocol":"SCTP"}]`))
	c.slice(reject, "protocol in the wrong case", slicePorts(`[{"port":80,"protocol":"tcp"}]`))
	c.slice(reject, "protocol not an enum value", slicePorts(`[{"port":80,"protocol":"HTTP"}]`))
	c.slice(reject, "protocol empty", slicePorts(`[{"port":80,"protocol":""}]`))
	c.slice(reject, "two unnamed ports", slicePorts(`[{"port":80},{"port":81}]`))
	c.slice(reject, "two ports with an empty name", slicePorts(`[{"name":"","port":80},{"port":81}]`))
	c.slice(reject, "duplicate port names", slicePorts(`[{"name":"http","port":80},{"name":"http","port":8080}]`))
	c.slice(accept, "same port number twice under different names", slicePorts(`[{"name":"a","port":80},{"name":"b","port":80}]`))
	c.slice(accept, "unnamed and named port", slicePorts(`[{"port":80},{"name":"b","port":81}]`))
	c.slice(reject, "port name with uppercase", slicePorts(`[{"name":"Http","port":80}]`))
	c.slice(reject, "port name with an underscore", slicePorts(`[{"name":"my_port","port":80}]`))
	c.slice(accept, "port name of 63 characters", slicePorts(`[{"name":`+q(strings.Repeat("p", 63))+`,"port":80}]`))
	c.slice(reject, "port name of 64 characters", slicePorts(`[{"name":`+q(strings.Repeat("p", 64))+`,"port":80}]`))
	c.slice(accept, "port name all digits", slicePorts(`[{"name":"8080","port":8080}]`))
	c.slice(accept, "port 1", slicePorts(`[{"port":1}]`))
	c.slice(accept, "port 65535", slicePorts(`[{"port":65535}]`))
	for _, p := range []string{"0", "-1", "65536", "2147483647", "-2147483648"} {
		c.slice(acceptWarn, "port "+p+" (the server does not check slice port numbers)", slicePorts(`[{"port":`+p+`}]`))
	}
	for _, p := range []string{"2147483648", "-2147483649", "80.5", "1e10", `"80"`, "true"} {
		c.slice(reject, "port "+p, slicePorts(`[{"port":`+p+`}]`))
	}
	c.slice(accept, "100 ports", slicePorts("["+repeat(100, `{"name":"p%d","port":80}`)+"]"))
	c.slice(acceptWarn, "101 ports (the server allows 20000)", slicePorts("["+repeat(101, `{"name":"p%d","port":80}`)+"]"))
	c.slice(acceptWarn, "20000 ports", slicePorts("["+repeat(20000, `{"name":"p%d"}`)+"]"))
	c.slice(reject, "20001 ports", slicePorts("["+repeat(20001, `{"name":"p%d"}`)+"]"))
	c.slice(reject, "unknown port property", slicePorts(`[{"port":80,"targetPort":8080}]`))
	c.slice(reject, "port an array", slicePorts(`[[80]]`))
	for _, a := range []string{"http", "HTTP", "h2c", "grpc", "kubernetes.io/h2c", "kubernetes.io/ws", "kubernetes.io/wss",
		"example.com/my-protocol", "a/b", "my.domain.example/Proto_1", strings.Repeat("x", 15)} {
		c.slice(accept, "appProtocol "+a, slicePorts(`[{"port":80,"appProtocol":`+q(a)+`}]`))
	}
	for _, a := range []string{"kubernetes.io/foo", "kubernetes.io/H2C", "my_custom_proto", "a--b",
		strings.Repeat("x", 16), "1234", "proto.v1"} {
		c.slice(acceptWarn, "appProtocol "+a+" (outside the spec, the server accepts it)",
			slicePorts(`[{"port":80,"appProtocol":`+q(a)+`}]`))
	}
	for _, a := range []string{"Bad Proto", "", "-", "http2-", "example.com/", "/x", "Example.com/x", "a/b/c", "-x", "x-",
		strings.Repeat("x", 64), "example.com/" + strings.Repeat("x", 64), "http:", "kubernetes.io/h2c/x"} {
		c.slice(reject, "appProtocol "+q(a), slicePorts(`[{"port":80,"appProtocol":`+q(a)+`}]`))
	}
}

func metadataCases(c *corpus) {
	// Each metadata case is tried on an EndpointSlice and on an Endpoints item.
	type metaCase struct {
		w    want
		name string
		meta string
	}
	label63, label64 := strings.Repeat("l", 63), strings.Repeat("l", 64)
	name253 := strings.Repeat(strings.Repeat("n", 62)+".", 4) + "n"
	prefix253 := strings.Repeat(strings.Repeat("g", 62)+".", 4) + "g"
	bigValue := strings.Repeat("v", 256*1024-len("k"))
	cases := []metaCase{
		{accept, "name a DNS subdomain", `{"name":"web.example-1"}`},
		{accept, "name of 253 characters", `{"name":` + q(name253) + `}`},
		{reject, "name of 254 characters", `{"name":` + q(name253+"n") + `}`},
		{reject, "name with uppercase", `{"name":"Web"}`},
		{reject, "name with an underscore", `{"name":"web_1"}`},
		{reject, "name ending in '.'", `{"name":"web."}`},
		{reject, "name '..'", `{"name":".."}`},
		{reject, "name empty without generateName", `{"name":""}`},
		{accept, "name empty with generateName", `{"name":"","generateName":"web-"}`},
		{accept, "generateName alone", `{"generateName":"web-"}`},
		{accept, "generateName with a name", `{"name":"web","generateName":"web-"}`},
		{reject, "generateName with uppercase", `{"name":"web","generateName":"Web-"}`},
		{accept, "generateName 'x_-' (the server masks the last two characters)", `{"name":"web","generateName":"x_-"}`},
		{reject, "generateName '-'", `{"name":"web","generateName":"-"}`},
		{accept, "generateName empty", `{"name":"web","generateName":""}`},
		{reject, "name of 300 characters", `{"name":` + q(strings.Repeat("n", 300)) + `}`},
		{reject, "name starting with '-'", `{"name":"-web"}`},
		{reject, "name ending in '-'", `{"name":"web-"}`},
		{reject, "name starting with '.'", `{"name":".web"}`},
		{reject, "name with '..' inside", `{"name":"web..1"}`},
		{reject, "name with uppercase inside (camelCase)", `{"name":"webSlice"}`},
		{reject, "name with a slash", `{"name":"web/1"}`},
		{reject, "name with a space", `{"name":"web 1"}`},
		{reject, "name with a colon", `{"name":"web:1"}`},
		{accept, "name all digits", `{"name":"0123"}`},
		{accept, "name of one character", `{"name":"a"}`},
		{accept, "name with dots and dashes", `{"name":"a-1.b-2.c"}`},
		{accept, "generateName alone, without a trailing '-'", `{"generateName":"web"}`},
		{accept, "generateName alone, with dots", `{"generateName":"web.v1-"}`},
		{accept, "generateName alone, all digits", `{"generateName":"0-"}`},
		{reject, "generateName alone, with uppercase", `{"generateName":"Web-"}`},
		{reject, "generateName alone, with an underscore", `{"generateName":"web_1-"}`},
		{reject, "generateName alone, 'x_-' (the server masks it, but the name it generates is invalid)", `{"generateName":"x_-"}`},
		{reject, "generateName alone, 'web.-' (masked, but the name generated is invalid)", `{"generateName":"web.-"}`},
		{reject, "generateName alone, 'web..-' (masked, but the name generated is invalid)", `{"generateName":"web..-"}`},
		{reject, "generateName alone, 'xA-' (masked, but the name generated is invalid)", `{"generateName":"xA-"}`},
		{reject, "generateName alone, starting with '-'", `{"generateName":"-web-"}`},
		{reject, "generateName alone, ending in '.'", `{"generateName":"web."}`},
		{reject, "generateName alone, with '..' inside", `{"generateName":"web..x-"}`},
		{accept, "generateName alone, of 253 characters", `{"generateName":` + q(prefix253) + `}`},
		{reject, "generateName alone, of 254 characters", `{"generateName":` + q(prefix253+"g") + `}`},
		{reject, "generateName of 300 characters, with a name", `{"name":"web","generateName":` + q(strings.Repeat("g", 300)) + `}`},
		{reject, "namespace with uppercase", `{"name":"web","namespace":"Default"}`},
		{reject, "namespace starting with '-'", `{"name":"web","namespace":"-ns"}`},
		{reject, "namespace of 64 characters", `{"name":"web","namespace":` + q(strings.Repeat("s", 64)) + `}`},
		{missingNS, "namespace of 63 characters (valid; it does not exist)", `{"name":"web","namespace":` + q(strings.Repeat("s", 63)) + `}`},
		{missingNS, "namespace that does not exist", `{"name":"web","namespace":"` + missingNamespace + `"}`},
		{missingNS, "namespace that does not exist, with generateName", `{"generateName":"web-","namespace":"` + missingNamespace + `"}`},
		{reject, "namespace that does not exist, and an invalid name", `{"name":"Web","namespace":"` + missingNamespace + `"}`},
		{accept, "namespace of the context variant", `{"name":"web","namespace":"` + contextNamespaceName + `"}`},
		{accept, "namespace default", `{"name":"web","namespace":"default"}`},
		{accept, "namespace empty", `{"name":"web","namespace":""}`},
		{accept, "namespace kube-system", `{"name":"web","namespace":"kube-system"}`},
		{accept, "another namespace", `{"name":"web","namespace":"` + otherNamespace + `"}`},
		{reject, "namespace not a DNS label", `{"name":"web","namespace":"Bad_NS"}`},
		{reject, "namespace with a dot", `{"name":"web","namespace":"a.b"}`},
		{reject, "namespace a number", `{"name":"web","namespace":1}`},
		{accept, "labels", `{"labels":{"app":"web","app.kubernetes.io/name":"web","example.com/Mixed_Case.1":"V_1.x","empty":""}}`},
		{accept, "label key name part of 63 characters", `{"labels":{` + q("example.com/"+label63) + `:"x"}}`},
		{reject, "label key name part of 64 characters", `{"labels":{` + q("example.com/"+label64) + `:"x"}}`},
		{reject, "label key with a space", `{"labels":{"bad key":"x"}}`},
		{reject, "label key with two '/'", `{"labels":{"a/b/c":"x"}}`},
		{reject, "label key with an uppercase prefix", `{"labels":{"Example.com/x":"x"}}`},
		{reject, "label key with an empty prefix", `{"labels":{"/x":"x"}}`},
		{reject, "label key empty", `{"labels":{"":"x"}}`},
		{reject, "label key starting with '-'", `{"labels":{"-x":"x"}}`},
		{accept, "label value of 63 characters", `{"labels":{"k":` + q(label63) + `}}`},
		{reject, "label value of 64 characters", `{"labels":{"k":` + q(label64) + `}}`},
		{reject, "label value with a space", `{"labels":{"k":"a b"}}`},
		{reject, "label value ending in '-'", `{"labels":{"k":"a-"}}`},
		{reject, "label value a number", `{"labels":{"k":1}}`},
		{reject, "labels a list", `{"labels":["a"]}`},
		{accept, "annotations", `{"annotations":{"Example.COM/Some-Key":"any text at all: {\"json\": true}","k":""}}`},
		{reject, "annotation key with a space", `{"annotations":{"bad key":"x"}}`},
		{reject, "annotation key with two '/'", `{"annotations":{"a/b/c":"x"}}`},
		{reject, "annotation value a boolean", `{"annotations":{"k":true}}`},
		{accept, "annotations of 256 KiB less room for the URN written", `{"annotations":{"k":` + q(bigValue[512:]) + `}}`},
		{reject, "annotations of exactly 256 KiB, and the URN written", `{"annotations":{"k":` + q(bigValue) + `}}`},
		{accept, "finalizers", `{"finalizers":["example.com/cleanup","kubernetes","orphan"]}`},
		{accept, "finalizer foregroundDeletion", `{"finalizers":["foregroundDeletion"]}`},
		{reject, "finalizer without a domain", `{"finalizers":["cleanup"]}`},
		{reject, "finalizers orphan and foregroundDeletion", `{"finalizers":["orphan","foregroundDeletion"]}`},
		{reject, "finalizer not a qualified name", `{"finalizers":["example.com/clean up"]}`},
		{reject, "finalizer with an uppercase domain", `{"finalizers":["Example.com/x"]}`},
		{reject, "finalizer empty", `{"finalizers":[""]}`},
		{accept, "owner reference", `{"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"web","uid":"1234","controller":true,"blockOwnerDeletion":true}]}`},
		{accept, "owner reference of an unknown kind", `{"ownerReferences":[{"apiVersion":"example.com/v1alpha1","kind":"Widget","name":"w","uid":"u"}]}`},
		{accept, "owner references, one controller", `{"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"a","uid":"1","controller":true},{"apiVersion":"apps/v1","kind":"Deployment","name":"b","uid":"2","controller":false}]}`},
		{reject, "owner references, two controllers", `{"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"a","uid":"1","controller":true},{"apiVersion":"apps/v1","kind":"Deployment","name":"b","uid":"2","controller":true}]}`},
		{reject, "owner reference without a uid", `{"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"a"}]}`},
		{reject, "owner reference with an empty uid", `{"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"a","uid":""}]}`},
		{reject, "owner reference with an empty name", `{"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"","uid":"1"}]}`},
		{reject, "owner reference with an empty kind", `{"ownerReferences":[{"apiVersion":"v1","kind":"","name":"a","uid":"1"}]}`},
		{reject, "owner reference without an apiVersion", `{"ownerReferences":[{"kind":"Service","name":"a","uid":"1"}]}`},
		{reject, "owner reference with apiVersion 'apps/'", `{"ownerReferences":[{"apiVersion":"apps/","kind":"Deployment","name":"a","uid":"1"}]}`},
		{reject, "owner reference with apiVersion 'a/b/c'", `{"ownerReferences":[{"apiVersion":"a/b/c","kind":"Deployment","name":"a","uid":"1"}]}`},
		{accept, "owner reference with apiVersion '/v1'", `{"ownerReferences":[{"apiVersion":"/v1","kind":"Service","name":"a","uid":"1"}]}`},
		{reject, "owner reference to a v1 Event", `{"ownerReferences":[{"apiVersion":"v1","kind":"Event","name":"a","uid":"1"}]}`},
		{accept, "owner reference to an events.k8s.io Event", `{"ownerReferences":[{"apiVersion":"events.k8s.io/v1","kind":"Event","name":"a","uid":"1"}]}`},
		{reject, "owner reference with an unknown property", `{"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"a","uid":"1","namespace":"x"}]}`},
		{acceptWarn, "server-owned fields (dropped)", `{"uid":"1234","resourceVersion":"99","creationTimestamp":"2024-01-01T00:00:00Z","generation":7,"selfLink":"/x","clusterName":"c"}`},
		{acceptWarn, "deletion fields (dropped)", `{"deletionTimestamp":"2024-01-01T00:00:00Z","deletionGracePeriodSeconds":30}`},
		{acceptWarn, "managedFields (dropped)", `{"managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{}}}]}`},
		{acceptWarn, "invalid server-owned fields (dropped, not validated)", `{"generation":-1,"uid":7,"managedFields":"x","creationTimestamp":"yesterday"}`},
		{reject, "unknown metadata property", `{"lables":{"a":"b"}}`},
		{reject, "metadata a string", `"web"`},
	}
	for _, mc := range cases {
		c.slice(mc.w, "slice metadata: "+mc.name, sliceMeta(mc.meta))
		c.list(mc.w, "item metadata: "+mc.name, listMeta(mc.meta))
	}
}

func listCases(c *corpus) {
	c.list(accept, "items empty (manages nothing)", `{"items":[]}`)
	c.list(accept, "item without subsets", `{"items":[{"metadata":{"name":"web"}}]}`)
	c.list(accept, "item with empty subsets", `{"items":[{"metadata":{"name":"web"},"subsets":[]}]}`)
	c.list(reject, "unknown item property", `{"items":[{"metadata":{"name":"web"},"subset":[]}]}`)
	c.list(accept, "typical item", `{"items":[{"metadata":{"name":"web","labels":{"app":"web"}},"subsets":[`+
		`{"addresses":[{"ip":"10.0.0.1","hostname":"web-0","nodeName":"node-1","targetRef":{"kind":"Pod","name":"web-0","namespace":"default"}}],`+
		`"notReadyAddresses":[{"ip":"10.0.0.2"}],"ports":[{"name":"http","port":80,"protocol":"TCP","appProtocol":"http"}]}]}]}`)
	c.list(reject, "subset without addresses", listSubsets(`[{}]`))
	c.list(reject, "subset with only ports", listSubsets(`[{"ports":[{"port":80}]}]`))
	c.list(reject, "subset with empty address lists", listSubsets(`[{"addresses":[],"notReadyAddresses":[],"ports":[{"port":80}]}]`))
	c.list(accept, "subset with only not-ready addresses", listSubsets(`[{"notReadyAddresses":[{"ip":"10.0.0.1"}]}]`))
	c.list(accept, "subset without ports (headless)", listSubsets(`[{"addresses":[{"ip":"10.0.0.1"}]}]`))
	c.list(reject, "second subset without addresses", listSubsets(`[{"addresses":[{"ip":"10.0.0.1"}]},{"ports":[{"port":80}]}]`))
	c.list(acceptWarn, "address both ready and not ready (the server accepts it)",
		listSubsets(`[{"addresses":[{"ip":"10.0.0.1"}],"notReadyAddresses":[{"ip":"10.0.0.1"}]}]`))
	c.list(nonStandardIPv4, "address both ready and not ready, spelled differently",
		listSubsets(`[{"addresses":[{"ip":"10.0.0.1"}],"notReadyAddresses":[{"ip":"010.0.0.1"}]}]`))
	c.list(accept, "same address ready in one subset, not ready in another",
		listSubsets(`[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]},{"notReadyAddresses":[{"ip":"10.0.0.1"}],"ports":[{"port":81}]}]`))
	c.list(accept, "same address twice in addresses", listSubsets(`[{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.1"}]}]`))

	for _, ip := range []string{"10.0.0.1", "2001:db8::1", "fd00::1", "224.0.1.1", "100.64.0.1", "255.255.255.255"} {
		c.list(accept, "ip "+ip, listIP(ip))
	}
	for _, ip := range []string{"010.0.0.1", "::ffff:10.0.0.1"} {
		c.list(nonStandardIPv4, "non-standard ip "+ip, listIP(ip))
	}
	for _, ip := range []string{"2001:DB8::1", "2001:db8:0:0:0:0:0:1"} {
		c.list(acceptWarn, "non-canonical ip "+ip, listIP(ip))
	}
	for _, ip := range []string{"127.0.0.1", "127.1.2.3", "::1", "169.254.0.1", "fe80::1", "febf:ffff::1", "224.0.0.251",
		"ff02::fb", "ff12::1", "0.0.0.0", "::", "not-an-ip", "", "10.0.0.1/32", "::ffff:169.254.0.1", "fe80::1%eth0",
		"1.2.3.4.5"} {
		c.list(reject, "ip "+q(ip), listIP(ip))
	}
	c.list(accept, "not-ready address validated too (valid)", listSubsets(`[{"notReadyAddresses":[{"ip":"10.0.0.9"}]}]`))
	c.list(reject, "not-ready address validated too (loopback)", listSubsets(`[{"notReadyAddresses":[{"ip":"127.0.0.1"}]}]`))
	c.list(reject, "address without ip", listAddress(`{"hostname":"web-0"}`))
	c.list(reject, "ip a number", listAddress(`{"ip":10}`))
	c.list(accept, "hostname", listAddress(`{"ip":"10.0.0.1","hostname":"web-0"}`))
	c.list(accept, "hostname empty", listAddress(`{"ip":"10.0.0.1","hostname":""}`))
	c.list(reject, "hostname with uppercase", listAddress(`{"ip":"10.0.0.1","hostname":"Web-0"}`))
	c.list(reject, "hostname with a dot", listAddress(`{"ip":"10.0.0.1","hostname":"web.0"}`))
	c.list(reject, "hostname of 64 characters", listAddress(`{"ip":"10.0.0.1","hostname":`+q(strings.Repeat("h", 64))+`}`))
	c.list(accept, "hostname of 63 characters", listAddress(`{"ip":"10.0.0.1","hostname":`+q(strings.Repeat("h", 63))+`}`))
	c.list(accept, "nodeName", listAddress(`{"ip":"10.0.0.1","nodeName":"node-1.example"}`))
	c.list(reject, "nodeName empty", listAddress(`{"ip":"10.0.0.1","nodeName":""}`))
	c.list(reject, "nodeName with uppercase", listAddress(`{"ip":"10.0.0.1","nodeName":"Node-1"}`))
	c.list(accept, "targetRef", listAddress(`{"ip":"10.0.0.1","targetRef":{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u","fieldPath":"spec.containers[0]"}}`))
	c.list(reject, "targetRef unknown property", listAddress(`{"ip":"10.0.0.1","targetRef":{"pod":"p"}}`))
	c.list(reject, "unknown address property", listAddress(`{"ip":"10.0.0.1","zone":"a"}`))

	c.list(accept, "single unnamed port", listPorts(`[{"port":80}]`))
	c.list(accept, "single named port", listPorts(`[{"name":"http","port":80}]`))
	c.list(accept, "two named ports", listPorts(`[{"name":"http","port":80},{"name":"https","port":443}]`))
	c.list(reject, "two unnamed ports", listPorts(`[{"port":80},{"port":443}]`))
	c.list(reject, "named and unnamed port", listPorts(`[{"name":"http","port":80},{"port":443}]`))
	c.list(reject, "named and empty-named port", listPorts(`[{"name":"http","port":80},{"name":"","port":443}]`))
	c.list(acceptWarn, "duplicate port names (the server accepts them)", listPorts(`[{"name":"http","port":80},{"name":"http","port":8080}]`))
	c.list(accept, "same port number under two names", listPorts(`[{"name":"a","port":80},{"name":"b","port":80}]`))
	c.list(reject, "port name with uppercase", listPorts(`[{"name":"HTTP","port":80}]`))
	c.list(reject, "port name of 64 characters", listPorts(`[{"name":`+q(strings.Repeat("p", 64))+`,"port":80}]`))
	c.list(accept, "port name of 63 characters", listPorts(`[{"name":`+q(strings.Repeat("p", 63))+`,"port":80}]`))
	c.list(accept, "port 1", listPorts(`[{"port":1}]`))
	c.list(accept, "port 65535", listPorts(`[{"port":65535}]`))
	for _, p := range []string{"0", "-1", "65536", "2147483648", "80.5", `"80"`} {
		c.list(reject, "port "+p, listPorts(`[{"port":`+p+`}]`))
	}
	c.list(reject, "port missing", listPorts(`[{"name":"http"}]`))
	c.list(accept, "protocols", listPorts(`[{"name":"a","port":53,"protocol":"UDP"},{"name":"b","port":53,"protocol":"TCP"},{"name":"c","port":9,"protocol":"SCTP"}]`))
	c.list(reject, "protocol in the wrong case", listPorts(`[{"port":53,"protocol":"udp"}]`))
	c.list(acceptWarn, "protocol empty (the server defaults it)", listPorts(`[{"port":53,"protocol":""}]`))
	c.list(accept, "appProtocol kubernetes.io/ws", listPorts(`[{"port":80,"appProtocol":"kubernetes.io/ws"}]`))
	c.list(acceptWarn, "appProtocol kubernetes.io/foo", listPorts(`[{"port":80,"appProtocol":"kubernetes.io/foo"}]`))
	c.list(reject, "appProtocol Bad Proto", listPorts(`[{"port":80,"appProtocol":"Bad Proto"}]`))
	c.list(reject, "unknown port property", listPorts(`[{"port":80,"targetPort":80}]`))

	c.list(accept, "two items", `{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`)
	c.list(reject, "two items with the same name", `{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a"}}]}`)
	c.list(reject, "same name, namespace unset and default",
		`{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}},{"metadata":{"name":"a","namespace":"default"}}]}`)
	c.list(accept, "same name in two namespaces",
		`{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a","namespace":"`+otherNamespace+`"}}]}`)
	c.list(reject, "second item invalid", `{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"B"}}]}`)
	c.list(acceptWarn, "list metadata (dropped)", `{"metadata":{"resourceVersion":"1","continue":"x","remainingItemCount":3,"selfLink":"/x"},"items":[]}`)
}

// itemNameCases are about the names of EndpointsList items: each item's name is its
// identity in the set, so an item must have one, or generateName (the provider then
// picks the name in Check).
func itemNameCases(c *corpus) {
	const subsets = `"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]`
	c.listAs(reject, "item without metadata", plainConfig, `{"items":[{`+subsets+`}]}`)
	c.listAs(reject, "item with empty metadata", plainConfig, `{"items":[{"metadata":{},`+subsets+`}]}`)
	c.listAs(reject, "item with only a namespace", plainConfig, `{"items":[{"metadata":{"namespace":"default"},`+subsets+`}]}`)
	c.listAs(reject, "item with a null name", plainConfig, `{"items":[{"metadata":{"name":null},`+subsets+`}]}`)
	c.listAs(reject, "item with an empty generateName and no name", plainConfig,
		`{"items":[{"metadata":{"generateName":""},`+subsets+`}]}`)
	c.listAs(reject, "second item without a name", plainConfig,
		`{"items":[{"metadata":{"name":"a"}},{"metadata":{"labels":{"app":"b"}},`+subsets+`}]}`)
	c.listAs(accept, "two items with the same generateName", plainConfig,
		`{"items":[{"metadata":{"generateName":"web-"},`+subsets+`},{"metadata":{"generateName":"web-"}}]}`)
	c.listAs(accept, "an item with generateName and one with a name", plainConfig,
		`{"items":[{"metadata":{"generateName":"web-"}},{"metadata":{"name":"web"}}]}`)
	c.listAs(accept, "item with generateName, in another namespace", plainConfig,
		`{"items":[{"metadata":{"generateName":"web-","namespace":"`+otherNamespace+`"},`+subsets+`}]}`)
	c.cases = append(c.cases, testCase{name: "list with an unusual resource name", kind: listKind, want: accept,
		logical: "My_List.v2", inputs: fromPlain(decodeJSON(c.tb, `{"items":[{"metadata":{"name":"web"},`+subsets+`}]}`)).AsMap()})
}

// namespaceDefaultCases check, under every provider configuration, where objects that
// name no namespace go: the provider's namespace setting, else the kubeconfig
// context's namespace, else "default".
func namespaceDefaultCases(c *corpus) {
	const (
		slice    = `"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}]`
		subsets  = `"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]`
		autoname = `{"metadata":{"labels":{"app":"web"}},` + slice + `}`
	)
	for v := range variantCount {
		ns := variants[v].namespace
		unset := accept // an object that names no namespace
		switch v {
		case configNamespaceMissing:
			unset = missingNS
		case configNamespaceInvalid, contextNamespaceInvalid:
			unset = reject
		}
		autonamed := unset
		if autonamed == accept {
			autonamed = acceptEither
		}
		c.sliceAs(unset, "slice without a namespace", "", v, `{"metadata":{"name":"web"},`+slice+`}`)
		c.sliceAs(unset, "slice with an empty namespace", "", v, `{"metadata":{"name":"web","namespace":""},`+slice+`}`)
		c.sliceAs(unset, "slice with generateName and no namespace", "", v, `{"metadata":{"generateName":"web-"},`+slice+`}`)
		c.sliceAs(autonamed, "autonamed slice without a namespace", "webSlice", v, autoname)
		c.sliceAs(autonamed, "autonamed slice without metadata", "web", v, `{`+slice+`}`)
		c.sliceAs(accept, "slice in namespace default", "", v, `{"metadata":{"name":"web","namespace":"default"},`+slice+`}`)
		c.sliceAs(accept, "autonamed slice in another namespace", "web", v,
			`{"metadata":{"namespace":"`+otherNamespace+`"},`+slice+`}`)
		c.listAs(unset, "item without a namespace", v, `{"items":[{"metadata":{"name":"web"},`+subsets+`}]}`)
		c.listAs(unset, "item with generateName and no namespace", v, `{"items":[{"metadata":{"generateName":"web-"},`+subsets+`}]}`)
		c.listAs(accept, "item in namespace default", v, `{"items":[{"metadata":{"name":"web","namespace":"default"},`+subsets+`}]}`)
		c.listAs(reject, "two items of the same name, one without a namespace, one in the provider's default namespace", v,
			`{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a","namespace":`+q(ns)+`}}]}`)
		if unset == accept && ns != "default" {
			c.listAs(accept, "two items of the same name, one without a namespace, one in namespace default", v,
				`{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a","namespace":"default"}}]}`)
		}
	}
}

// autonameLogicalNames are resource names that autonamed slices are given: the
// provider must make a valid object name of every one.
var autonameLogicalNames = []string{
	"web", "webSlice", "my_slice", "web.slice", "web..slice", ".web", "web.", "x.-y", "1web", "9", "WEB", "-web",
	"web-", "my slice", "ünïcödé", "web/slice", "Web_Slice.Prod-1", "_", "---", "...",
	strings.Repeat("a", 244), strings.Repeat("a", 245), strings.Repeat("a", 253), strings.Repeat("a", 300),
	strings.Repeat("webSlice", 40), strings.Repeat("a.", 150), strings.Repeat("A_", 150),
}

// autonameCases are slices without name and generateName, which the provider names
// after their resource name. Whatever the resource name, Check must accept them and
// the server must accept the name Check gave.
func autonameCases(c *corpus) {
	for _, logical := range autonameLogicalNames {
		c.sliceAs(acceptEither, "autonamed slice", logical, plainConfig,
			`{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"port":80}]}`)
	}
	c.sliceAs(acceptEither, "autonamed slice with labels", "webSlice", plainConfig,
		`{"metadata":{"labels":{"app":"web"}},"addressType":"IPv4","endpoints":[]}`)
	c.sliceAs(acceptEither, "autonamed FQDN slice", "my_slice", plainConfig,
		`{"addressType":"FQDN","endpoints":[{"addresses":["web.example.com"]}]}`)
	c.sliceAs(accept, "generateName, whatever the resource name", "webSlice", plainConfig,
		`{"metadata":{"generateName":"web-"},"addressType":"IPv4","endpoints":[]}`)
	c.sliceAs(accept, "name given, whatever the resource name", "My_Slice", plainConfig,
		`{"metadata":{"name":"web"},"addressType":"IPv4","endpoints":[]}`)
	c.sliceAs(reject, "autonamed slice with an invalid endpoint", "webSlice", plainConfig,
		`{"addressType":"IPv4","endpoints":[{"addresses":["127.0.0.1"]}]}`)
}
