//go:build !endpoints_no_cloud_credentials

package kube

import (
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube/cloudauth"
)

// cloudCredentials replaces the kubeconfig's exec plugin, when it is GKE's, EKS's or
// AKS's and the plugin program is missing (or the cloudCredentials setting says
// builtIn), by tokens made in the provider's process, on the same credentials the
// program would use. The credentials are found on the first request.
func cloudCredentials(restConfig *rest.Config, cfg Config) error {
	plugin, ok := cloudauth.Recognise(restConfig.ExecProvider)
	if !ok {
		return nil
	}
	mode, err := cloudauth.ParseMode(cfg.CloudCredentials)
	if err != nil {
		return fmt.Errorf("kubernetes configuration: %w", err)
	}
	choice := cloudauth.Decide(mode, plugin, nil)
	if !choice.BuiltIn {
		return nil
	}
	src, err := cloudauth.New(plugin, cloudauth.Options{Server: restConfig.Host, Google: cfg.GoogleTokens})
	if err != nil {
		return fmt.Errorf("kubernetes configuration%s: %w", source(cfg), err)
	}
	restConfig.ExecProvider = nil
	restConfig.Wrap(cloudauth.Transport(src, choice.Reason))
	return nil
}
