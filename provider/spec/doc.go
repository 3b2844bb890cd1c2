// Package spec is the provider's own view of schema.json, the single source of truth
// for what the provider accepts: the tokens it declares, the shapes of their
// properties, and the provider configuration keys with their secrets, defaults and
// environment variables.
//
// MustLoad (or Load) returns the decoded document. It is decoded once, on first use,
// so a plugin start pays nothing for it; the result is shared and must not be
// modified. Package and its parts decode only the fields the provider reads
// at run time: package validate derives Check's schema rules from them, and package
// provider its configuration keys.
//
// KindOf names the kind of a property value in plain words ("a string", "a list",
// ...), for the messages of every package that checks values; it never shows the
// value, so it is safe for secrets.
//
// The package does no I/O; of this module it imports only the embedded schema.
package spec
