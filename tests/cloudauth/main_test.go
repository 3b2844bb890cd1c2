package cloudauth_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube/cloudauth"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/clouddouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/inprocess"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
)

// The clusters' names and identities, as the clouds' consoles would show them.
//
//nolint:gosec // G101: fake credentials the doubles check
const (
	// eksCluster is the EKS cluster's name, which its tokens are signed for.
	eksCluster = "demo"
	// awsAccount owns the IAM user and role.
	awsAccount = "111122223333"
	// deployerRole is the IAM role the role kubeconfig assumes.
	deployerRole = "arn:aws:iam::" + awsAccount + ":role/deployer"
	// keyAccount is the Google service account of the key file (the metadata
	// server's is clouddouble.Email).
	keyAccount = "deployer@double-project.iam.gserviceaccount.com"
	// keyToken is the token googledouble grants for keyAccount's key.
	keyToken = "ya29.granted-to-the-key-file"
	// azureTenant, spnClientID and workloadClientID are the Entra ID tenant and its
	// two applications: a service principal with a client secret, and a workload
	// identity with a federated credential.
	azureTenant      = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	spnClientID      = "0b6e2d1c-2a27-4c38-9f07-4c8ea7c1e2d0"
	workloadClientID = "5a1c2e7f-93d4-4b1e-8f60-2c7d9e4a1b38"
	// spnSecret is the service principal's client secret; federatedToken is what the
	// workload identity's projected token file holds.
	spnSecret      = "Xq18Q~s3cr3t.value_for.the-double"
	federatedToken = "eyJhbGciOiJSUzI1NiJ9.projected-service-account-token.sig"
	// pluginTokenPrefix starts the tokens the stand-in plugin programs print (see
	// fakePlugin); the cluster takes them for pluginUser.
	pluginTokenPrefix = "made-by-the-plugin-program."
	pluginUser        = "plugin-program-user"
)

// The doubles every test shares, started by TestMain.
var (
	logs     = &inprocess.Log{}
	sts      *clouddouble.STS
	entra    *clouddouble.Entra
	metadata *clouddouble.Metadata
	google   *googledouble.Server
	webhook  *clouddouble.TokenWebhook
	// awsUser is the IAM user whose key the EKS tests use; it is mapped. strayUser
	// is another IAM user of the account, not mapped to any cluster user.
	// profileUser, also mapped, is the one whose key is in the shared credentials
	// file of the profile tests.
	awsUser, strayUser, profileUser clouddouble.AWSKey
	// googleKey is the service account key file googledouble knows.
	googleKey []byte
)

// users maps each identity the clouds vouch for to its user of the cluster (the
// EKS access entries, and the users GKE and AKS take from their tokens); RBAC binds
// each. TestMain fills it.
var users = map[string]bool{}

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(logs))
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// run starts the doubles and the webhook, then runs the tests against a control plane
// whose API server asks the webhook about the tokens it does not know.
func run(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "cloudauth-")
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	// (The CLI tests' copy of the plugin.)
	defer func() { _ = plugin.RemoveAmbientDir() }()

	sts = clouddouble.StartSTS()
	defer sts.Close()
	awsUser = sts.AddUser(awsAccount, "ci")
	strayUser = sts.AddUser(awsAccount, "intern")
	profileUser = sts.AddUser(awsAccount, "developer")
	sts.AddRole(deployerRole)

	entra = clouddouble.StartEntra()
	defer entra.Close()
	entra.AddSecretApp(azureTenant, spnClientID, spnSecret)
	entra.AddFederatedApp(azureTenant, workloadClientID, federatedToken)
	// The Azure identity library trusts the system's roots only: the double's
	// certificate is the one root of this test binary (set before any TLS client of
	// the process reads the roots, which it does once).
	certFile := filepath.Join(dir, "entra.crt")
	if err := os.WriteFile(certFile, entra.CertificatePEM(), 0o600); err != nil {
		return 0, err
	}
	if err := os.Setenv("SSL_CERT_FILE", certFile); err != nil {
		return 0, err
	}

	metadata = clouddouble.StartMetadata()
	defer metadata.Close()
	if google, err = googledouble.Start(keyToken); err != nil {
		return 0, err
	}
	defer func() { _ = google.Close() }()
	if googleKey, err = google.ServiceAccountKey(keyAccount); err != nil {
		return 0, err
	}

	for _, u := range []string{awsUser.ARN, profileUser.ARN, deployerRole, clouddouble.Email, keyAccount, spnClientID, workloadClientID, pluginUser} {
		users[u] = true
	}
	if webhook, err = clouddouble.StartTokenWebhook(dir, verify); err != nil {
		return 0, err
	}
	defer webhook.Close()
	return controlplane.RunTestsWith(m, controlplane.Options{APIServerArgs: webhook.APIServerArgs()}), nil
}

// verify checks a token as the cluster of its cloud does and returns its user.
func verify(r *http.Request, token string) (clouddouble.Identity, error) {
	var who string
	switch {
	case strings.HasPrefix(token, cloudauth.EKSPrefix):
		arn, err := sts.VerifyEKSToken(r.Context(), token, eksCluster)
		if err != nil {
			return clouddouble.Identity{}, fmt.Errorf("EKS: %w", err)
		}
		who = canonicalARN(arn)
	case token == keyToken:
		who = keyAccount
	case strings.HasPrefix(token, pluginTokenPrefix):
		who = pluginUser
	case strings.HasPrefix(token, "ya29."):
		if err := metadata.Verify(token); err != nil {
			return clouddouble.Identity{}, fmt.Errorf("GKE: %w", err)
		}
		who = clouddouble.Email
	default:
		grant, err := entra.Verify(token, cloudauth.AKSServerID)
		if err != nil {
			return clouddouble.Identity{}, fmt.Errorf("AKS: %w", err)
		}
		who = grant.ClientID
	}
	if !users[who] {
		return clouddouble.Identity{}, fmt.Errorf("%s is not mapped to a user of the cluster", who)
	}
	return clouddouble.Identity{Username: who, UID: who}, nil
}

// canonicalARN turns an assumed role's session ARN into its role's ARN, as
// aws-iam-authenticator does before it looks the identity up.
func canonicalARN(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[2] != "sts" || !strings.HasPrefix(parts[5], "assumed-role/") {
		return arn
	}
	role := strings.Split(strings.TrimPrefix(parts[5], "assumed-role/"), "/")[0]
	return fmt.Sprintf("arn:%s:iam::%s:role/%s", parts[1], parts[4], role)
}
