// Package cloudauth runs the provider with kubeconfigs as GKE's, EKS's and AKS's tools
// write them (a user whose exec block runs gke-gcloud-auth-plugin, aws eks get-token
// or kubelogin) on a machine where none of those programs is installed, against a
// real kube-apiserver that authenticates bearer tokens as those clouds' clusters do.
//
// The API server stands for the three clusters at once: an authentication webhook
// (clouddouble.TokenWebhook) reviews every token it does not know itself. An EKS
// token is checked as aws-iam-authenticator checks it: its presigned STS
// GetCallerIdentity URL is sent to the STS double with the cluster's name, and the
// caller's ARN (an assumed role's made canonical, arn:aws:iam::<account>:role/<name>)
// must be mapped to a user, as the cluster's access entries or aws-auth ConfigMap
// map it. A GKE token must have been granted by the metadata server double (the
// default service account) or by googledouble's token endpoint for a service
// account key; the user is the service account's email. An AKS token must have
// been granted by the Entra ID double for the AKS server ID's scope; the user is the
// application's client ID (the double knows no object IDs). RBAC binds each user to
// a ClusterRole that manages EndpointSlices.
//
// The provider serves in the test binary (package inprocess), or as the built plugin
// that the real pulumi CLI and YAML host run (one login per cloud: up, a quiet
// refresh and preview, destroy), and finds the programs missing from PATH, so it makes each token
// in its own process (package provider/kube/cloudauth). The tests create, read and
// delete an EndpointSlice per cloud and login; show, through the CLI, that the same
// kubeconfigs fail with "executable ... not found", and create nothing, when the
// plugin programs are required (cloudCredentials exec, from the environment or the
// stack's configuration); show that the provider runs the plugin program when it is
// on PATH (a stand-in whose tokens the cluster maps to a user of their own), unless
// cloudCredentials is builtIn; renew tokens that live seconds before they expire, and
// a token the cluster refuses because its role session ended (one 401, then a new
// token); and check that a wrong credential fails with an error that names where the
// credentials came from and the cluster.
//
// The tests set environment variables (PATH, the clouds' credentials), so none runs
// in parallel. The Entra ID double serves TLS with a certificate of its own, which the
// Azure identity library trusts through SSL_CERT_FILE, set by TestMain (the plugin
// the CLI runs inherits it).
package cloudauth
