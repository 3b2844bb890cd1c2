// Package cloudauth makes, in the provider's process, the cluster tokens that the
// exec plugins of GKE, EKS and AKS kubeconfigs make, so that a kubeconfig written by
// gcloud container clusters get-credentials, aws eks update-kubeconfig or az aks
// get-credentials works where the plugin program is not installed (CI, containers).
//
// Recognise reads a kubeconfig exec block as each cloud's tools write it:
//
//   - GKE: gke-gcloud-auth-plugin (no arguments, or
//     --use_application_default_credentials). The token is an OAuth 2.0 access token
//     of Google Application Default Credentials (a key file that
//     GOOGLE_APPLICATION_CREDENTIALS names: service account, workload identity
//     federation, authorized user; gcloud's application_default_credentials.json; the
//     metadata server) with the cloud-platform and userinfo.email scopes; or, when
//     Options.Google is set, a token of the provider's own Google settings
//     (accessToken, credentials, impersonateServiceAccount) with those scopes.
//   - EKS: aws [--region R] [--profile P] eks get-token --cluster-name C [--role-arn A]
//     [--output json], or aws-iam-authenticator token -i C [-r A]; AWS_PROFILE,
//     AWS_REGION and AWS_DEFAULT_REGION of the block's env count. The token is
//     "k8s-aws-v1." and the unpadded base64url of a presigned STS GetCallerIdentity URL
//     whose signed headers include x-k8s-aws-id: C (X-Amz-Expires=60, as the tools
//     send; STS accepts the URL for 15 minutes after X-Amz-Date). Credentials come from
//     the AWS SDK's default chain (environment, shared config and profile, web
//     identity, container and instance metadata); --role-arn is assumed with STS
//     AssumeRole. Without any region, us-east-1 signs, as aws-iam-authenticator does.
//   - AKS: kubelogin get-token [--login M] --server-id S [--client-id]
//     [--tenant-id] [--environment] ..., as az aks get-credentials and kubelogin
//     convert-kubeconfig write it. The token is a Microsoft Entra ID access token for
//     the scope S/.default, from the Azure identity library's credential for the login
//     mode: spn (client secret or certificate), workloadidentity, azurecli, azd, msi.
//     devicecode (what az aks get-credentials writes), interactive and ropc need a
//     person or a user's password and are not built in: the error says to convert the
//     kubeconfig (kubelogin convert-kubeconfig -l workloadidentity, spn or azurecli).
//     --legacy and proof-of-possession tokens are left to kubelogin.
//
// A block with an argument the package does not understand is left to its program.
//
// Decide applies the mode (automatic: the program when it is on PATH, else tokens in
// process; builtIn; exec). New returns the source of tokens, which finds its
// credentials on the first token asked for. Transport sends its tokens on every
// request: kept until a minute (or a quarter of their life, when shorter) before they
// expire, renewed and sent once more when the server answers 401, and reported once
// through the provider's logger (package secret), naming the cloud, the cluster and
// the credentials, never a token. A token that cannot be made is a 401 status
// (CredentialsError), not a failure to reach the cluster.
//
// The cloud libraries are linked into the plugin, but nothing of them runs before a
// recognised kubeconfig asks for a token; their package initialisation costs under a
// millisecond (GODEBUG=inittrace=1).
package cloudauth
