// Package clouddouble holds local stand-ins for the credential services the three
// managed Kubernetes clouds' tokens come from, for tests of the provider's in-process
// cluster credentials (package provider/kube/cloudauth):
//
//   - STS, AWS Security Token Service: GetCallerIdentity answered for a presigned URL
//     (the EKS token), AssumeRole for a request signed in its Authorization header.
//     Both SigV4 signatures are checked against the key pairs the double knows, and
//     errors come in STS's envelope (XML, or JSON when asked for). The unsigned
//     AssumeRoleWithWebIdentity grants a role's temporary keys to the OIDC token the
//     role trusts (AddWebIdentityRole).
//   - Entra, the Microsoft Entra ID token endpoint of a tenant (v2.0 client
//     credentials: a client secret, a client assertion as workload identity sends
//     its federated token, or one signed with a certificate credential's key, whose
//     thumbprint, signature, audience, issuer and time range are checked as Entra ID
//     checks them) and the tenant's OpenID configuration, over TLS with a certificate
//     of its own, with Entra's AADSTS error envelope. NewClientCertificate makes a
//     certificate credential.
//   - ManagedIdentity, the managed identity endpoint App Service, Functions and
//     Container Apps give an app (IDENTITY_ENDPOINT, checked header IDENTITY_HEADER):
//     tokens of the app's system-assigned identity or of a user-assigned one named by
//     client, principal or resource ID, and the endpoint's refusal of an identity the
//     app does not have. (A VM's Instance Metadata Service is at a link-local address
//     no test can stand in for.)
//   - Metadata, the Google Compute Engine metadata server's token endpoint, which
//     answers only requests with the Metadata-Flavor: Google header.
//   - GoogleSTS, Google's workload identity federation: the Security Token Service's
//     token exchange of a CI system's OIDC token for a federated access token, and IAM
//     Credentials' generateAccessToken, which impersonates a service account with it;
//     ExternalAccount writes the credential configuration (type external_account).
//
// (Google's OAuth 2.0 token endpoint for service account keys is in googledouble.)
//
// Each records the tokens it granted and can verify a token the way the cloud does for
// a cluster: VerifyEKSToken decodes and checks the presigned URL and calls the double's
// GetCallerIdentity with it, as aws-iam-authenticator's server does.
//
// TokenWebhook puts such checks in front of a real kube-apiserver: an authentication
// webhook (TokenReview v1) that answers with a verify function, records each answer
// (with a fingerprint of the token, never the token) and gives the API server's flags
// (controlplane.Options.APIServerArgs).
//
// Tests use it; the provider's own packages never import it.
package clouddouble
