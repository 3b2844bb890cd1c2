package clouddouble

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube/cloudauth"
)

//nolint:paralleltest // it sets the AWS environment variables
func TestTokenWebhookWithEKSTokens(t *testing.T) {
	sts := StartSTS()
	defer sts.Close()
	key := sts.AddUser("111122223333", "ci")
	w, err := StartTokenWebhook(t.TempDir(), func(r *http.Request, token string) (Identity, error) {
		arn, err := sts.VerifyEKSToken(r.Context(), token, "demo")
		return Identity{Username: arn, Groups: []string{"system:authenticated"}}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if b, err := os.ReadFile(w.ConfigFile); err != nil || !strings.Contains(string(b), w.URL()) {
		t.Fatalf("the webhook's kubeconfig %s does not name it: %v", b, err)
	}
	review := func(token string) tokenReview {
		body, _ := json.Marshal(map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": map[string]any{"token": token}})
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, w.URL(), bytes.NewReader(body))
		resp, err := w.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		var out tokenReview
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := review("k8s-aws-v1.bm90IGEgdXJs"); got.Status.Authenticated || got.Status.Error == "" {
		t.Errorf("a malformed token was authenticated: %+v", got.Status)
	}
	dir := t.TempDir()
	for name, value := range map[string]string{"AWS_ENDPOINT_URL_STS": sts.URL, "AWS_ACCESS_KEY_ID": key.AccessKeyID,
		"AWS_SECRET_ACCESS_KEY": key.SecretAccessKey, "AWS_PROFILE": "", "AWS_CONFIG_FILE": filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"), "AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(name, value)
	}
	src, err := cloudauth.New(cloudauth.Plugin{Cloud: cloudauth.EKS, Command: "aws", Cluster: "demo", Region: "eu-west-1"},
		cloudauth.Options{Server: "https://203.0.113.10"})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := src.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := review(tok.Value)
	if !got.Status.Authenticated || got.Status.User.Username != key.ARN || got.Spec.Token != "" {
		t.Errorf("TokenReview of an EKS token answered %+v, want %s authenticated (and the token not echoed)", got, key.ARN)
	}
	reviews := w.Reviews()
	if len(reviews) != 2 || reviews[0].Accepted() || reviews[0].Username != "" || !reviews[1].Accepted() ||
		reviews[1].Username != key.ARN || len(reviews[1].Token) != 12 || strings.Contains(tok.Value, reviews[1].Token) {
		t.Errorf("Reviews() = %+v, want the malformed token refused, then %s accepted (tokens as fingerprints)", reviews, key.ARN)
	}
	if args := w.APIServerArgs(); len(args) != 3 || args[0] != "--authentication-token-webhook-config-file="+w.ConfigFile {
		t.Errorf("APIServerArgs() = %q", args)
	}
}
