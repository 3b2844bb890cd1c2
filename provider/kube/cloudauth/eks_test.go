package cloudauth

import (
	"encoding/base64"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/clouddouble"
)

// awsEnv points the AWS SDK at the STS double with key, and at no configuration files
// or instance metadata of the machine.
func awsEnv(t *testing.T, sts *clouddouble.STS, key clouddouble.AWSKey) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("AWS_ENDPOINT_URL_STS", sts.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", key.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", key.SecretAccessKey)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

//nolint:paralleltest // it sets the AWS environment variables
func TestEKSToken(t *testing.T) {
	sts := clouddouble.StartSTS()
	defer sts.Close()
	key := sts.AddUser("111122223333", "ci")
	awsEnv(t, sts, key)

	src, err := New(Plugin{Cloud: EKS, Command: "aws", Cluster: "demo", Region: "eu-west-1"},
		Options{Server: "https://203.0.113.10"})
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	tok, err := src.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok.Value, "k8s-aws-v1.") || strings.Contains(tok.Value, "=") {
		t.Fatalf("token %.20q... is not k8s-aws-v1. and unpadded base64url", tok.Value)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(tok.Value, "k8s-aws-v1."))
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for name, want := range map[string]string{"Action": "GetCallerIdentity", "Version": "2011-06-15", "X-Amz-Expires": "60",
		"X-Amz-Algorithm": "AWS4-HMAC-SHA256", "X-Amz-SignedHeaders": "host;x-k8s-aws-id"} {
		if got := q.Get(name); got != want {
			t.Errorf("presigned URL's %s = %q, want %q", name, got, want)
		}
	}
	if cred := q.Get("X-Amz-Credential"); !strings.HasSuffix(cred, "/eu-west-1/sts/aws4_request") || !strings.HasPrefix(cred, key.AccessKeyID+"/") {
		t.Errorf("X-Amz-Credential = %q, want %s/<date>/eu-west-1/sts/aws4_request", cred, key.AccessKeyID)
	}
	if life := tok.Expiry.Sub(before); life < 14*time.Minute || life > 15*time.Minute+time.Second {
		t.Errorf("token expires after %s, want 15 minutes from signing", life)
	}
	arn, err := sts.VerifyEKSToken(t.Context(), tok.Value, "demo")
	if err != nil {
		t.Fatalf("the double refused the token: %v", err)
	}
	if arn != key.ARN {
		t.Errorf("GetCallerIdentity answered %s, want %s", arn, key.ARN)
	}
	// The cluster header is signed: the token does not serve another cluster.
	if _, err := sts.VerifyEKSToken(t.Context(), tok.Value, "other"); err == nil || !strings.Contains(err.Error(), "SignatureDoesNotMatch") {
		t.Errorf("the token for demo verified for cluster other: %v", err)
	}
	// STS accepts the URL 15 minutes after its date, not the 60 s of X-Amz-Expires.
	sts.SetNow(func() time.Time { return time.Now().Add(10 * time.Minute) })
	if _, err := sts.VerifyEKSToken(t.Context(), tok.Value, "demo"); err != nil {
		t.Errorf("the token was refused after 10 minutes: %v", err)
	}
	sts.SetNow(func() time.Time { return time.Now().Add(16 * time.Minute) })
	if _, err := sts.VerifyEKSToken(t.Context(), tok.Value, "demo"); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("the token was accepted after 16 minutes: %v", err)
	}
}

//nolint:paralleltest // it sets the AWS environment variables
func TestEKSTokenWithRole(t *testing.T) {
	sts := clouddouble.StartSTS()
	defer sts.Close()
	key := sts.AddUser("111122223333", "ci")
	role := "arn:aws:iam::444455556666:role/deployer"
	sts.AddRole(role)
	awsEnv(t, sts, key)

	src, err := New(Plugin{Cloud: EKS, Command: "aws", Cluster: "demo", Region: "us-west-2", RoleARN: role},
		Options{Server: "https://203.0.113.10"})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := src.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	arn, err := sts.VerifyEKSToken(t.Context(), tok.Value, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(arn, "arn:aws:sts::444455556666:assumed-role/deployer/") {
		t.Errorf("the token is %s's, want the assumed role's", arn)
	}
	if n := sts.Calls()["AssumeRole"]; n != 1 {
		t.Errorf("AssumeRole called %d times, want 1", n)
	}
}

//nolint:paralleltest // it sets the AWS environment variables
func TestEKSWrongCredentials(t *testing.T) {
	sts := clouddouble.StartSTS()
	defer sts.Close()
	key := sts.AddUser("111122223333", "ci")
	wrong := key
	wrong.SecretAccessKey = strings.Repeat("x", 40)
	awsEnv(t, sts, wrong)

	src, err := New(Plugin{Cloud: EKS, Command: "aws", Cluster: "demo", Region: "eu-west-1"},
		Options{Server: "https://203.0.113.10"})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := src.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// Presigning is local: the wrong secret shows when the cluster checks the token.
	if _, err := sts.VerifyEKSToken(t.Context(), tok.Value, "demo"); err == nil || !strings.Contains(err.Error(), "SignatureDoesNotMatch") {
		t.Fatalf("a token signed with the wrong secret verified: %v", err)
	}
	for _, want := range []string{"EKS cluster demo", "https://203.0.113.10", "eu-west-1", "EnvConfigCredentials"} {
		if !strings.Contains(src.Describe(), want) {
			t.Errorf("Describe() = %q, want it to name %q", src.Describe(), want)
		}
	}
	if strings.Contains(src.Describe(), wrong.SecretAccessKey) {
		t.Error("Describe() shows the secret key")
	}

	// A role the caller may not assume: the error names the role, the cluster and the STS answer.
	_, err = New(Plugin{Cloud: EKS, Command: "aws", Cluster: "demo", Region: "eu-west-1", RoleARN: "arn:aws:iam::1:role/nope"},
		Options{Server: "https://203.0.113.10"})
	if err != nil {
		t.Fatal(err)
	}
	awsEnv(t, sts, key)
	src, _ = New(Plugin{Cloud: EKS, Command: "aws", Cluster: "demo", Region: "eu-west-1", RoleARN: "arn:aws:iam::1:role/nope"},
		Options{Server: "https://203.0.113.10"})
	_, err = src.Token(t.Context())
	if err == nil {
		t.Fatal("a token was made with a role that cannot be assumed")
	}
	for _, want := range []string{"EKS cluster demo", "arn:aws:iam::1:role/nope", "AccessDenied"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

// A profile named by the block's AWS_PROFILE yields to access keys in the
// environment, as the AWS CLI that the block runs takes them first; a profile named by
// --profile (pulumi-eks writes it) is used whatever the environment holds.
//
//nolint:paralleltest // it sets the AWS environment variables
func TestEKSProfileAndEnvironmentKeys(t *testing.T) {
	sts := clouddouble.StartSTS()
	defer sts.Close()
	envKey, profileKey := sts.AddUser("111122223333", "ci"), sts.AddUser("111122223333", "developer")
	awsEnv(t, sts, envKey)
	credentialsFile := "[developer]\naws_access_key_id = " + profileKey.AccessKeyID +
		"\naws_secret_access_key = " + profileKey.SecretAccessKey + "\n"
	if err := os.WriteFile(os.Getenv("AWS_SHARED_CREDENTIALS_FILE"), []byte(credentialsFile), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		fromEnv bool
		want    string
	}{
		{"AWS_PROFILE of the block", true, envKey.ARN},
		{"--profile", false, profileKey.ARN},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src, err := New(Plugin{Cloud: EKS, Command: "aws", Cluster: "demo", Region: "eu-west-1", Profile: "developer",
				ProfileFromEnv: tt.fromEnv}, Options{Server: "https://203.0.113.10"})
			if err != nil {
				t.Fatal(err)
			}
			tok, err := src.Token(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if arn, err := sts.VerifyEKSToken(t.Context(), tok.Value, "demo"); err != nil || arn != tt.want {
				t.Errorf("the token is %s's (%v), want %s's", arn, err, tt.want)
			}
		})
	}
}
