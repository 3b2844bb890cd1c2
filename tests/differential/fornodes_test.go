package differential_test

import (
	"strings"
)

// forNodesCases are the cases of hints.forNodes (served since Kubernetes 1.34): the
// API server allows at most 8 entries, each a valid node name (a DNS subdomain), no
// name twice; a missing name is read as "", which is not a node name.
func forNodesCases(c *corpus) {
	hint := func(nodes string) string { return endpoint(`"hints":{"forNodes":[` + nodes + `]}`) }
	c.slice(accept, "node hint", hint(`{"name":"node-1"}`))
	c.slice(accept, "node hint a DNS subdomain", hint(`{"name":"ip-10-0-0-1.ec2.internal"}`))
	c.slice(accept, "node and zone hints", endpoint(`"nodeName":"node-1","zone":"a",`+
		`"hints":{"forZones":[{"name":"a"}],"forNodes":[{"name":"node-1"}]}`))
	c.slice(accept, "8 node hints", hint(repeat(8, `{"name":"node-%d"}`)))
	c.slice(reject, "9 node hints", hint(repeat(9, `{"name":"node-%d"}`)))
	c.slice(reject, "duplicate node hints", hint(`{"name":"node-1"},{"name":"node-2"},{"name":"node-1"}`))
	c.slice(accept, "node hint of 253 characters", hint(`{"name":`+q(strings.Repeat(strings.Repeat("n", 62)+".", 4)+"n")+`}`))
	c.slice(reject, "node hint of 254 characters", hint(`{"name":`+q(strings.Repeat(strings.Repeat("n", 62)+".", 4)+"nn")+`}`))
	c.slice(reject, "node hint with uppercase", hint(`{"name":"Node-1"}`))
	c.slice(reject, "node hint with an underscore", hint(`{"name":"node_1"}`))
	c.slice(reject, "node hint ending in '.'", hint(`{"name":"node-1."}`))
	c.slice(reject, "node hint with an empty name", hint(`{"name":""}`))
	c.slice(reject, "node hint without a name", hint(`{}`))
	c.slice(reject, "node hint with an unknown property", hint(`{"node":"node-1"}`))
	c.slice(reject, "node hint name a number", hint(`{"name":1}`))
	c.slice(accept, "node hints empty", hint(``))
	c.slice(reject, "9 zone hints beside valid node hints", endpoint(`"hints":{"forZones":[`+
		repeat(9, `{"name":"zone-%d"}`)+`],"forNodes":[{"name":"node-1"}]}`))
}
