package cloudauth

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
)

// PluginReport returns a wrapper of round trippers for a cluster whose recognised
// plugin p runs as the kubeconfig says (Decide chose it, for reason): it reports once,
// through the provider's logger of the first request's context, that the cluster's
// tokens come from the plugin program and why, as Transport reports tokens made in
// process. It changes nothing in the requests.
func PluginReport(p Plugin, server, reason string) func(http.RoundTripper) http.RoundTripper {
	reported := &sync.Once{}
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			reported.Do(func() {
				secret.Logger(req.Context()).Infof("kubernetes credentials: the token of the %s comes from the kubeconfig's plugin %s (%s)",
					p.Where(server), program(p.Command), reason)
			})
			return next.RoundTrip(req)
		})
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// Where names the cluster of p at server, as every message of the package does.
func (p Plugin) Where(server string) string {
	switch p.Cloud {
	case EKS:
		return fmt.Sprintf("EKS cluster %s at %s", p.Cluster, server)
	case AKS:
		return fmt.Sprintf("AKS cluster at %s (server ID %s)", server, p.ServerID)
	default:
		return fmt.Sprintf("%s cluster at %s", p.Cloud, server)
	}
}
