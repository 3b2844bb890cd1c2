// Package spec is the provider's own view of schema.json: the tokens it declares, the
// shapes of their properties and the provider configuration keys. It decodes the embedded
// document once, on first use, so start-up pays nothing for it.
package spec
