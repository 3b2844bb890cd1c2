// Package validate checks the inputs of the provider's Kubernetes resources before
// anything is sent to an API server, and normalizes them.
//
// Check calls [EndpointSlice] and [EndpointsList]. Each returns a [Result]: the
// normalized inputs to pass on, the failures to report per property (with the exact
// Pulumi property path, such as `endpoints[3].addresses[0]`), and warnings.
//
// Two kinds of rules apply:
//
//   - Rules derived from schema.json (via package spec, never hand-written per field):
//     required properties, property types (integers must be integral), enum values,
//     unknown property names (reported with the closest known names), and defaults.
//   - Rules of the Kubernetes API, written to match what kube-apiserver validates for
//     these kinds exactly: IP address forms and ranges, DNS names, qualified names,
//     label values, limits, uniqueness, owner references and annotation sizes. The few
//     that differ by Kubernetes minor (IP address forms, node hints) live in minors.go,
//     keyed by minor, and follow the [Server] the inputs will be written to; the
//     window of minors is [OldestMinor] to [NewestMinor].
//
// The API server is the judge of what is valid. Where the interface specification
// describes a rule that the server does not enforce (for example at most 100 ports per
// slice, or an address listed as both ready and not ready), the rule produces a
// warning instead of a failure, so that a Check verdict agrees with the server's. The
// differential test in tests/differential holds the two verdicts together on a corpus
// of several hundred objects.
//
// Normalization applies schema defaults (`protocol` "TCP" on ports, slice port `name`
// ""), and drops what the server owns or ignores, with a warning naming the path:
// server-populated metadata (uid, resourceVersion, creationTimestamp, ...), the list
// metadata of an EndpointsList, `deprecatedTopology` of slice endpoints (writes
// through discovery.k8s.io/v1 are discarded), and `hints.forNodes` where the server's
// minor drops node hints. Dropped values are not validated.
// Everything else is passed on as given, in the same representation, so secrets,
// unknowns and dependencies are preserved.
//
// During preview values may be unknown: a rule whose inputs are unknown is skipped.
// Secret values are validated by their underlying value and are never quoted in
// failure reasons or warnings.
//
// The functions are pure: no I/O, no shared mutable state, safe for concurrent use.
// The one question they ask outside is the Server's version, and only for an input
// whose verdict differs by minor.
package validate
