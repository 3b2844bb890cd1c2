package differential_test

import (
	"strings"
)

// forNodesCases are the cases of hints.forNodes. From Kubernetes 1.34 (nodeHintsFrom)
// the API server keeps and validates them: at most 8 entries, each a valid node name
// (a DNS subdomain), no name twice; a missing name is read as "", which is not a node
// name. 1.33 (its feature gate off by default) and 1.32 (which does not know the field)
// drop them, whatever they hold, so Check leaves them out, with a warning, and accepts
// what is left (see checkDroppedNodeHints, which the test applies to every case that
// sets node hints on such a server).
func forNodesCases(c *corpus) {
	hint := func(nodes string) string { return endpoint(`"hints":{"forNodes":[` + nodes + `]}`) }
	c.slice(nodeHintsValid, "node hint", hint(`{"name":"node-1"}`))
	c.slice(nodeHintsValid, "node hint a DNS subdomain", hint(`{"name":"ip-10-0-0-1.ec2.internal"}`))
	c.slice(nodeHintsValid, "node and zone hints", endpoint(`"nodeName":"node-1","zone":"a",`+
		`"hints":{"forZones":[{"name":"a"}],"forNodes":[{"name":"node-1"}]}`))
	c.slice(nodeHintsValid, "8 node hints", hint(repeat(8, `{"name":"node-%d"}`)))
	c.slice(nodeHintsInvalid, "9 node hints", hint(repeat(9, `{"name":"node-%d"}`)))
	c.slice(nodeHintsInvalid, "duplicate node hints", hint(`{"name":"node-1"},{"name":"node-2"},{"name":"node-1"}`))
	c.slice(nodeHintsValid, "node hint of 253 characters", hint(`{"name":`+q(strings.Repeat(strings.Repeat("n", 62)+".", 4)+"n")+`}`))
	c.slice(nodeHintsInvalid, "node hint of 254 characters", hint(`{"name":`+q(strings.Repeat(strings.Repeat("n", 62)+".", 4)+"nn")+`}`))
	c.slice(nodeHintsInvalid, "node hint with uppercase", hint(`{"name":"Node-1"}`))
	c.slice(nodeHintsInvalid, "node hint with an underscore", hint(`{"name":"node_1"}`))
	c.slice(nodeHintsInvalid, "node hint ending in '.'", hint(`{"name":"node-1."}`))
	c.slice(nodeHintsInvalid, "node hint with an empty name", hint(`{"name":""}`))
	c.slice(nodeHintsInvalid, "node hint without a name", hint(`{}`))
	c.slice(nodeHintsInvalid, "node hint with an unknown property", hint(`{"node":"node-1"}`))
	c.slice(nodeHintsInvalid, "node hint name a number", hint(`{"name":1}`))
	c.slice(nodeHintsValid, "node hints empty", hint(``))
	c.slice(reject, "9 zone hints beside valid node hints", endpoint(`"hints":{"forZones":[`+
		repeat(9, `{"name":"zone-%d"}`)+`],"forNodes":[{"name":"node-1"}]}`))

	// Node hints where other endpoints have none, or other rules of the slice differ
	// by minor too.
	c.slice(nodeHintsValid, "node hints on the second endpoint only", `{"addressType":"IPv4","endpoints":[`+
		`{"addresses":["10.0.0.1"]},{"addresses":["10.0.0.2"],"hints":{"forNodes":[{"name":"node-2"}]}}]}`)
	c.slice(nodeHintsInvalid, "node hints on two endpoints, the second's 9 entries", `{"addressType":"IPv4","endpoints":[`+
		`{"addresses":["10.0.0.1"],"hints":{"forNodes":[{"name":"node-1"}]}},`+
		`{"addresses":["10.0.0.2"],"hints":{"forNodes":[`+repeat(9, `{"name":"node-%d"}`)+`]}}]}`)
	c.slice(nodeHintsInvalid, "node hint with an empty name beside a valid one", hint(`{"name":"node-1"},{"name":""}`))
	c.slice(nodeHintsInvalid, "9 node hints with a duplicate and an empty name", hint(repeat(7, `{"name":"node-%d"}`)+
		`,{"name":"node-1"},{"name":""}`))
	c.slice(accept, "node hints null", endpoint(`"hints":{"forNodes":null}`))
	c.slice(fromMinor{32: acceptWarn, 33: reject}, "node hint on an IPv6 slice with a non-canonical address",
		`{"addressType":"IPv6","endpoints":[{"addresses":["2001:db8:0:0:0:0:0:1"],"hints":{"forNodes":[{"name":"node-1"}]}}]}`)
	c.slice(nodeHintsValid, "node hint on an IPv6 slice",
		`{"addressType":"IPv6","endpoints":[{"addresses":["2001:db8::1"],"hints":{"forNodes":[{"name":"node-1"}]}}]}`)
	c.slice(fromMinor{32: acceptWarn, 36: reject}, "node hint beside an address with leading zeros",
		`{"addressType":"IPv4","endpoints":[{"addresses":["010.0.0.1"],"hints":{"forNodes":[{"name":"node-1"}]}}]}`)
}
