// Package google implements the provider's Google Cloud lookup functions with Google's
// Go API libraries. Clients and credentials are resolved on first use, so a program
// that calls no lookup never needs Google credentials.
//
// Two functions are served (see Functions):
//
//   - endpoints:migration/v1alpha1:getImportDataFile, the Migration Center v1alpha1
//     importDataFiles.get method;
//   - endpoints:accessgateway/v1:getOrganizationPartnerTenantProxyConfigIamPolicy, the
//     BeyondCorp v1 proxyConfigs.getIamPolicy method.
//
// Each is one GET made as the generated clients make it, on the library's authorized
// transport (google.golang.org/api/transport/http) with googleapi error handling. The
// generated BeyondCorp v1 client with the second method exists only in old releases,
// and the generated Migration Center client would link thousands of types and methods
// for one call; its ImportDataFile type is still the one answers are decoded into.
//
// Arguments are checked before any request; bad ones come back as per-argument
// failures. While an argument is unknown (a preview) no request is made.
//
// Credentials, highest precedence first: the accessToken setting, the credentials
// setting (a JSON key or the path of one), Application Default Credentials. When
// impersonateServiceAccount is set, that account is acted as with whichever applies.
// Clients are kept while the configuration is unchanged. TokenSource gives the same
// credentials as access tokens of other scopes: the Kubernetes client's tokens of a
// GKE cluster, when SetsCredentials.
//
// Every request, retries included, carries the provider's User-Agent (with
// appendUserAgent after it), X-Goog-Request-Reason when requestReason is set, and
// X-Goog-User-Project naming billingProject when userProjectOverride is true; otherwise
// the auth library sends the quota project of the credentials, if they name one. When
// Google refuses a request for want of a quota project, the error says what to set.
//
// Each lookup is bounded by its context and by a timeout (Config.Timeout, else
// DefaultTimeout). Answers 429, 500, 502, 503 and 504 and connections reset or cut
// short are retried with exponential backoff and jitter (8 attempts,
// the waits from 200ms doubling up to 10s); other failures
// are reported at once, naming the resource, the HTTP status and Google's message.
// Secrets never appear in errors, logs or outputs.
package google
