// Package google implements the provider's Google Cloud lookup functions with Google's
// Go API libraries. Clients and credentials are resolved on first use, so a program
// that calls no lookup never needs Google credentials.
//
// Two functions are served (see Functions):
//
//   - endpoints:migration/v1alpha1:getImportDataFile, through the generated Migration
//     Center v1alpha1 client;
//   - endpoints:accessgateway/v1:getOrganizationPartnerTenantProxyConfigIamPolicy, as one
//     GET on the same library's authorized transport, with googleapi error handling
//     (the generated BeyondCorp v1 client with this method exists only in old releases).
//
// Arguments are checked before any request; bad ones come back as per-argument
// failures. While an argument is unknown (a preview) no request is made.
//
// Credentials, highest precedence first: the accessToken setting, the credentials
// setting (a JSON key or the path of one), Application Default Credentials. When
// impersonateServiceAccount is set, that account is acted as with whichever applies.
// Clients are kept while the configuration is unchanged.
//
// Each lookup is bounded by its context and by a timeout (Config.Timeout, else
// DefaultTimeout). Answers 429, 500, 502, 503 and 504 and connections reset or cut
// short are retried with exponential backoff and jitter (DefaultRetry); other failures
// are reported at once, naming the resource, the HTTP status and Google's message.
// Secrets never appear in errors, logs or outputs.
package google
