package cloudauth_test

import (
	"cmp"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/clouddouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/inprocess"
)

// login is one way a cloud's kubeconfig and credentials come together.
type login struct {
	name       string
	kubeconfig func(*controlplane.ControlPlane) []byte
	vars       func(*testing.T) map[string]string
	// user is who the cluster takes the tokens for; program the plugin the
	// kubeconfig runs; credentials a part of the provider's words for the
	// credentials it uses.
	user, program, credentials string
}

func logins() []login {
	return []login{
		{"GKE/metadata server", gkeKubeconfig, func(*testing.T) map[string]string { return metadataVariables() },
			clouddouble.Email, "gke-gcloud-auth-plugin", "the metadata server's service account"},
		{"GKE/service account key", gkeKubeconfig, func(t *testing.T) map[string]string { return keyFileVariables(t, googleKey) },
			keyAccount, "gke-gcloud-auth-plugin", "service_account key file"},
		{"EKS/access key", func(cp *controlplane.ControlPlane) []byte { return eksKubeconfig(cp, "") },
			func(*testing.T) map[string]string { return awsVariables(awsUser) },
			awsUser.ARN, "aws", "credentials from EnvConfigCredentials"},
		{"EKS/role", func(cp *controlplane.ControlPlane) []byte { return eksKubeconfig(cp, deployerRole) },
			func(*testing.T) map[string]string { return awsVariables(awsUser) },
			deployerRole, "aws", "role " + deployerRole + " assumed"},
		{"EKS/profile", func(cp *controlplane.ControlPlane) []byte { return eksProfileKubeconfig(cp, "developer") },
			awsProfileVariables, profileUser.ARN, "aws", "profile developer) (credentials from SharedConfigCredentials"},
		{"EKS/profile assuming a role", func(cp *controlplane.ControlPlane) []byte { return eksProfileKubeconfig(cp, "deployer") },
			awsProfileVariables, deployerRole, "aws", "profile deployer) (credentials from AssumeRoleProvider"},
		{"AKS/spn", func(cp *controlplane.ControlPlane) []byte { return aksKubeconfig(cp, "spn") },
			func(*testing.T) map[string]string { return spnVariables(spnSecret) },
			spnClientID, "kubelogin", "service principal " + spnClientID + " of tenant " + azureTenant + " with a client secret"},
		{"AKS/workloadidentity", func(cp *controlplane.ControlPlane) []byte { return aksKubeconfig(cp, "workloadidentity") },
			workloadVariables, workloadClientID, "kubelogin", "workload identity " + workloadClientID},
	}
}

// Each cloud's kubeconfig, as its tools write it, with no plugin program installed:
// the provider creates, reads and deletes an EndpointSlice with tokens it makes
// itself, which the cluster takes for the mapped user, and says once how it
// authenticates.
//
//nolint:paralleltest // the tests set PATH and the clouds' variables
func TestLifecycleWithoutPlugins(t *testing.T) {
	cp := cluster(t)
	for _, l := range logins() {
		t.Run(l.name, func(t *testing.T) {
			isolate(t, l.vars(t))
			before := len(webhook.Reviews())
			srv := inprocess.New(t, l.kubeconfig(cp), nil)
			newSlice(t, srv, cp, "web-"+strings.ToLower(strings.NewReplacer("/", "-", " ", "-").Replace(l.name))).lifecycle()

			reviews := reviewsFrom(before)
			if bad := refusals(reviews); len(bad) > 0 {
				t.Errorf("the cluster refused %d tokens: %+v", len(bad), bad)
			}
			if len(tokensOf(reviews, l.user)) == 0 {
				t.Errorf("no token was taken for %s; the reviews: %+v", l.user, reviews)
			}
			said := logs.Lines("is made in the provider's process", l.program+" is not on PATH", l.credentials, cp.RESTConfig().Host)
			if len(said) != 1 {
				t.Errorf("the provider said %d times that it makes the token, from %q, want once; its log:\n%s",
					len(said), l.credentials, strings.Join(logs.Lines("kubernetes credentials"), "\n"))
			}
		})
	}
}

// With the plugin program on PATH (a stand-in for aws that notes its arguments and
// prints a token of its own, which the cluster takes for pluginUser), the default
// mode runs it, as kubectl would: the cluster is sent the program's token only, and
// STS is asked nothing (no token is made in process), and the provider says once that
// the program makes the tokens and why. builtIn never runs it: the same
// kubeconfig works with tokens made in process. (Decide is the same for the three
// clouds: EKS stands for them.)
//
//nolint:paralleltest // the tests set PATH and the AWS variables
func TestPluginProgramOnPath(t *testing.T) {
	cp := cluster(t)
	for _, tt := range []struct {
		mode string
		// user is who the cluster takes the tokens for; program whether the plugin
		// program runs.
		user    string
		program bool
	}{
		{"", pluginUser, true},
		{"builtIn", deployerRole, false},
	} {
		t.Run("mode "+cmp.Or(tt.mode, "unset"), func(t *testing.T) {
			isolate(t, awsVariables(awsUser))
			ran := fakePlugin(t, "aws")
			var settings map[string]property.Value
			if tt.mode != "" {
				settings = map[string]property.Value{"cloudCredentials": property.New(tt.mode)}
			}
			before, asked := len(webhook.Reviews()), stsRequests()
			pluginNote := func() []string {
				return logs.Lines("comes from the kubeconfig's plugin aws (aws is on PATH at ", "EKS cluster "+eksCluster+" at "+cp.RESTConfig().Host)
			}
			noted := len(pluginNote())
			newSlice(t, inprocess.New(t, eksKubeconfig(cp, deployerRole), settings), cp, "web-plugin").lifecycle()
			if got, want := len(pluginNote())-noted, map[bool]int{true: 1}[tt.program]; got != want {
				t.Errorf("the provider said %d times that the plugin program makes the tokens, want %d; its log:\n%s",
					got, want, strings.Join(logs.Lines("kubernetes credentials"), "\n"))
			}

			reviews := reviewsFrom(before)
			if bad := refusals(reviews); len(bad) > 0 {
				t.Errorf("the cluster refused %d tokens: %+v", len(bad), bad)
			}
			for _, r := range reviews {
				if r.Accepted() && r.Username != tt.user {
					t.Errorf("a token was taken for %s, want only %s's", r.Username, tt.user)
					break
				}
			}
			if len(tokensOf(reviews, tt.user)) == 0 {
				t.Errorf("no token was taken for %s; the reviews: %+v", tt.user, reviews)
			}
			args, err := os.ReadFile(ran) //nolint:gosec // G304: the test's own file
			switch {
			case tt.program && err != nil:
				t.Errorf("the plugin program did not run: %v", err)
			case tt.program && !strings.Contains(string(args), "eks get-token --cluster-name "+eksCluster):
				t.Errorf("the plugin program ran with %q, want the kubeconfig's arguments", args)
			case !tt.program && err == nil:
				t.Errorf("the plugin program ran, with %q", args)
			}
			if got := stsRequests() - asked; tt.program && got > 0 {
				t.Errorf("STS was asked %d times while the plugin program made the tokens", got)
			}
		})
	}
}

// stsRequests counts the requests the STS double answered.
func stsRequests() int {
	n := 0
	for _, c := range sts.Calls() {
		n += c
	}
	return n
}

// apiServerTokenCache is how long kube-apiserver takes a bearer token it has
// authenticated without asking its authenticators again (TokenSuccessCacheTTL).
const apiServerTokenCache = 10 * time.Second

// A token kept by the provider that the cluster refuses before the provider expects
// it to expire (here: the role session whose credentials signed the EKS token has
// ended) is renewed once and the request sent again: the refresh succeeds with one
// refusal, a new role session and a new token, as does the delete after it.
//
//nolint:paralleltest // it sets PATH and the AWS variables, and moves the STS double's clock
func TestRefusedTokenRenewedOnce(t *testing.T) {
	cp := cluster(t)
	isolate(t, awsVariables(awsUser))
	sts.SetRoleSessionLifetime(2 * time.Minute)
	t.Cleanup(func() {
		sts.SetRoleSessionLifetime(0)
		sts.SetNow(time.Now)
	})
	srv := inprocess.New(t, eksKubeconfig(cp, deployerRole), nil)
	s := newSlice(t, srv, cp, "web-role-session")
	before, assumed := len(webhook.Reviews()), sts.Calls()["AssumeRole"]
	if err := s.create(); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got := sts.Calls()["AssumeRole"] - assumed; got != 1 {
		t.Fatalf("Create assumed the role %d times, want once", got)
	}
	first := tokensOf(reviewsFrom(before), deployerRole)
	if len(first) != 1 {
		t.Fatalf("tokens taken for the create %v, want one", first)
	}
	// The API server keeps a token it authenticated for 10 s, whatever the webhook's
	// cache TTL (its token success cache, which no flag sets): only then does it ask
	// the webhook about the same token again.
	time.Sleep(apiServerTokenCache + time.Second)

	// Three minutes later, as STS sees it: the two-minute session has ended, while
	// the token signed with it is 3 of its 15 minutes old, and still kept by the
	// provider (a new request signed now is within STS's 5 minutes of clock skew).
	sts.SetNow(func() time.Time { return time.Now().Add(3 * time.Minute) })
	beforeRead := len(webhook.Reviews())
	if err := s.read(); err != nil {
		t.Fatalf("Read after the role session ended: %v", err)
	}
	reviews := reviewsFrom(beforeRead)
	bad := refusals(reviews)
	if len(bad) != 1 || !strings.Contains(bad[0].Error, "ExpiredToken") || bad[0].Token != first[0] {
		t.Errorf("the cluster refused %+v; want one refusal, of the first token, for its ended session (ExpiredToken)", bad)
	}
	second := tokensOf(reviews, deployerRole)
	if len(second) != 1 || second[0] == first[0] {
		t.Errorf("tokens taken after the refusal %v, want one new token (the first was %s)", second, first[0])
	}
	if got := sts.Calls()["AssumeRole"] - assumed; got != 2 {
		t.Errorf("the role was assumed %d times, want twice (a new session after the refusal)", got)
	}
	beforeDelete := len(webhook.Reviews())
	if err := s.remove(); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if bad := refusals(reviewsFrom(beforeDelete)); len(bad) > 0 {
		t.Errorf("the delete's token was refused: %+v", bad)
	}
}

// Tokens that live seconds (the metadata server's and Entra ID's) are renewed
// before they expire: no request is refused, and each step after a token's renewal
// point sends a new one.
//
//nolint:paralleltest // it sets PATH and the clouds' variables, and shortens the doubles' tokens
func TestShortLivedTokensRenewed(t *testing.T) {
	cp := cluster(t)
	const lifetime = 8 * time.Second // kept 6 s: a quarter of its life before expiry
	metadata.SetLifetime(lifetime)
	entra.SetLifetime(lifetime)
	t.Cleanup(func() {
		metadata.SetLifetime(time.Hour)
		entra.SetLifetime(time.Hour)
	})
	vars := metadataVariables()
	for k, v := range spnVariables(spnSecret) {
		vars[k] = v
	}
	isolate(t, vars)
	type run struct {
		name, user string
		slice      *slice
		requests   func() int
	}
	runs := []run{
		{"GKE", clouddouble.Email, newSlice(t, inprocess.New(t, gkeKubeconfig(cp), nil), cp, "web-gke-short"),
			func() int { return len(metadata.Scopes()) }},
		{"AKS", spnClientID, newSlice(t, inprocess.New(t, aksKubeconfig(cp, "spn"), nil), cp, "web-aks-short"),
			entra.TokenRequests},
	}
	before := len(webhook.Reviews())
	steps := []struct {
		name string
		do   func(*slice) error
	}{{"Create", (*slice).create}, {"Read", (*slice).read}, {"Delete", (*slice).remove}}
	tokens := map[string]int{}
	for i, step := range steps {
		if i > 0 {
			time.Sleep(lifetime - lifetime/4 + 500*time.Millisecond)
		}
		for _, r := range runs {
			asked := r.requests()
			if err := step.do(r.slice); err != nil {
				t.Fatalf("%s %s: %v", r.name, step.name, err)
			}
			if i > 0 && r.requests() == asked {
				t.Errorf("%s %s, past the last token's renewal point (%v after it was made): no new token was asked for",
					r.name, step.name, lifetime-lifetime/4)
			}
			tokens[r.name] = len(tokensOf(reviewsFrom(before), r.user))
		}
	}
	if bad := refusals(reviewsFrom(before)); len(bad) > 0 {
		t.Errorf("the cluster refused %d tokens: %+v", len(bad), bad)
	}
	for _, r := range runs {
		if tokens[r.name] < len(steps) {
			t.Errorf("%s: the cluster took %d tokens over the %d steps, want one each at least", r.name, tokens[r.name], len(steps))
		}
	}
}

// A wrong credential fails the create with an error that names the cluster and
// where the credentials came from, never the secret; nothing is created.
//
//nolint:paralleltest // the tests set PATH and the clouds' variables
func TestWrongCredentials(t *testing.T) {
	cp := cluster(t)
	host := cp.RESTConfig().Host
	wrongKey := awsUser
	wrongKey.SecretAccessKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYWRONGKEYXX"
	other, err := googledouble.Start("ya29.from-another-token-endpoint")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Close() }()
	// A key the token endpoint does not know: minted by another double, sent to this one.
	unknownKey, err := other.ServiceAccountKey(keyAccount)
	if err != nil {
		t.Fatal(err)
	}
	unknownKey = []byte(strings.ReplaceAll(string(unknownKey), other.URL, google.URL))
	for _, tt := range []struct {
		name       string
		kubeconfig []byte
		vars       map[string]string
		// want are parts of the error; secret must not be in it; refused, when not
		// empty, is in the webhook's refusal (a token that was made and refused).
		want            []string
		secret, refused string
	}{
		{"EKS/wrong secret key", eksKubeconfig(cp, ""), awsVariables(wrongKey),
			[]string{"401", "EKS cluster " + eksCluster + " at " + host, "credentials from EnvConfigCredentials", "renewed once and refused again"},
			wrongKey.SecretAccessKey, "SignatureDoesNotMatch"},
		{"EKS/identity not mapped", eksKubeconfig(cp, ""), awsVariables(strayUser),
			[]string{"401", "EKS cluster " + eksCluster + " at " + host, "credentials from EnvConfigCredentials"},
			strayUser.SecretAccessKey, strayUser.ARN + " is not mapped"},
		{"GKE/unknown key", gkeKubeconfig(cp), keyFileVariables(t, unknownKey),
			[]string{"GKE cluster at " + host, "key.json (GOOGLE_APPLICATION_CREDENTIALS)", "invalid_grant"},
			"PRIVATE KEY", ""},
		{"AKS/wrong secret", aksKubeconfig(cp, "spn"), spnVariables("the-wrong-secret"),
			[]string{"AKS cluster at " + host, "service principal " + spnClientID, "AADSTS7000215"},
			"the-wrong-secret", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			isolate(t, tt.vars)
			before := len(webhook.Reviews())
			s := newSlice(t, inprocess.New(t, tt.kubeconfig, nil), cp, "web-wrong")
			err := s.create()
			if err == nil {
				t.Fatal("Create succeeded with a wrong credential")
			}
			t.Logf("Create: %v", err)
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error does not say %q:\n%v", want, err)
				}
			}
			if strings.Contains(err.Error(), tt.secret) {
				t.Errorf("the error shows the secret:\n%v", err)
			}
			bad := refusals(reviewsFrom(before))
			switch {
			case tt.refused == "" && len(bad) > 0:
				t.Errorf("the cluster was sent tokens that could not be made: %+v", bad)
			case tt.refused != "" && (len(bad) != 2 || !strings.Contains(bad[0].Error, tt.refused)):
				t.Errorf("refusals %+v, want two (the token, then a new one) for %q", bad, tt.refused)
			}
			list, lerr := cp.Clientset().DiscoveryV1().EndpointSlices(s.ns).List(t.Context(), metav1.ListOptions{})
			if lerr != nil || len(list.Items) > 0 {
				t.Errorf("slices in the namespace after a failed create: %v %v", list, lerr)
			}
		})
	}
}
