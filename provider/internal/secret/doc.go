// Package secret is the provider's one rule for secret values: what an answer marks
// secret, and what text leaving the plugin says in their place.
//
// The rule cannot drift with positions, because it names no position:
//
//   - Scopes. A secret anywhere at or below a top-level field of a resource's inputs
//     or state (endpoints, ports, subsets, addressType, items, ...) makes that whole
//     field secret in every answer built from them; inside metadata the scope is the
//     metadata key (metadata.labels, metadata.name, ...), and a secret metadata makes
//     all of it secret. An EndpointsList's items are one field: a secret in any item,
//     or on items itself, makes every item secret. The server and other clients may
//     reorder, drop and add elements within a field; the field stays secret.
//   - Values. Every string under a secret value is a secret string (Of collects
//     them). A scope of an answer that holds one of them anywhere is secret too
//     (Seal), and the text the plugin logs or returns as an error or warning says
//     [secret] in its place (Text, Error, Logger).
//
// Which inputs and states count is the lifecycles' to say (a refresh takes the
// previous state's secrets as well as the previous inputs', so what was secret stays
// secret); the provider's dispatch puts the secret strings of each request in its
// context (With), and every log line goes through Logger.
package secret
