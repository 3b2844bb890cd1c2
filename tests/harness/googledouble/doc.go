// Package googledouble is a local stand-in for the two Google Cloud APIs the provider's
// lookup functions call: the Migration Center API v1alpha1 (import data files) and the
// BeyondCorp API v1 (the IAM policy of a partner tenant's proxy configuration).
//
// A Server listens on 127.0.0.1 over plain HTTP and answers with the real APIs' JSON
// shapes and Google's error envelope. It checks the bearer token, records every request
// it receives (with its User-Agent, X-Goog-User-Project and X-Goog-Request-Reason
// headers), serves an OAuth 2.0 token endpoint for the service-account keys and user
// credentials it mints, and can be scripted to fail: statuses such as 429 or 503 before
// success, delays, malformed JSON and connections reset mid-response. Like Google, it
// refuses requests of user credentials that name no quota project.
//
// Tests and demos use it; the provider's own packages never import it.
package googledouble
