package cloudauth

import (
	"fmt"
	"strings"
	"time"
)

// The EKS token, as aws eks get-token and aws-iam-authenticator make it: a presigned
// STS GetCallerIdentity URL whose signed headers include the cluster's name.
const (
	// EKSPrefix starts every token; the URL follows in unpadded base64url.
	EKSPrefix = "k8s-aws-v1."
	// EKSClusterHeader carries the cluster name (or ID) in the signed request.
	EKSClusterHeader = "x-k8s-aws-id"
	// eksPresignExpires is the X-Amz-Expires the tools send. STS ignores it: a
	// presigned GetCallerIdentity URL is accepted for 15 minutes after X-Amz-Date.
	eksPresignExpires = "60"
	// EKSLifetime is how long the cluster accepts a token after it is signed.
	EKSLifetime = 15 * time.Minute
)

// eksDefaultRegion signs when neither the block nor the AWS configuration names a
// region, as aws-iam-authenticator does (the global STS endpoint's region).
const eksDefaultRegion = "us-east-1"

func profileOf(p Plugin) string {
	if p.Profile == "" {
		return ""
	}
	return fmt.Sprintf(" (profile %s)", p.Profile)
}

// kubelogin's login modes that make tokens without a person: the ones built in.
// devicecode, interactive and ropc need a person at a browser or terminal, or a user's
// password: they are left to kubelogin.
var aksLogins = []string{"spn", "workloadidentity", "azurecli", "azd", "msi"}

// interactiveLogin is the error for kubelogin's login modes that need a person.
func interactiveLogin(p Plugin, o Options) error {
	return fmt.Errorf("%s: kubelogin's %s login needs a person (a browser, a device code "+
		"or a user's password) and is not built in; where no one is at hand, as in CI, convert the kubeconfig to a login "+
		"that needs none (kubelogin convert-kubeconfig -l workloadidentity, -l spn or -l azurecli), or install kubelogin",
		p.Where(o.Server), p.Login)
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
