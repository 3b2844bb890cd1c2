// Package endpoints holds the Pulumi package schema of the endpoints provider.
//
// The schema in schema.json is the single source of truth for the provider: the
// plugin serves it, derives its input checks from it, and the SDK generator emits
// every language SDK from it. This package only embeds the file; parsing it is
// left to its users.
package endpoints

import _ "embed" // for go:embed

//go:embed schema.json
var schemaJSON []byte

// Schema returns the Pulumi package schema (the contents of schema.json) as JSON.
//
// The returned slice is shared and must not be modified; callers that need to
// change it must copy it first.
func Schema() []byte {
	return schemaJSON
}
