package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/apiproxy"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// envSettings are the provider settings that fall back to an environment variable
// and have a default, which the provider applies (config.variables) and the SDKs do not
// send.
var envSettings = []string{
	"qps", "burst", "requestTimeout", "deleteUnreachable", "skipUpdateUnreachable", "refreshBeforeUpdate",
	"suppressDeprecationWarnings", "userProjectOverride", "cloudCredentials",
}

// A TypeScript program that puts its slice and list on a provider of its own, setting
// only the namespace: the SDK sends none of the settings that fall back to an
// environment variable, so the state does not record them as set, and a plain
// `pulumi destroy` of a cluster gone for good follows PULUMI_ENDPOINTS_DELETE_UNREACHABLE
// as the hint says (destroy configures the provider from the state's record).
func TestExplicitProviderFollowsTheEnvironment(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	createExampleServices(t, cp.Clientset(), ns)
	proxy, kubeconfig := apiproxy.StartT(t, cp.RESTConfig())
	path := filepath.Join(t.TempDir(), "proxy.kubeconfig")
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	typescript := exampleLanguages[slices.IndexFunc(exampleLanguages, func(l exampleLanguage) bool { return l.dir == "typescript" })]
	p := installExample(t, typescript, path, startDouble(t))
	p.stack.Run("stack", "init", "dev")
	p.stack.Run("config", "set", "endpoints:namespace", ns)
	p.stack.Run("config", "set", "explicitProvider", "true")
	p.run(t, "up")

	var found bool
	for _, r := range stateResources(t, p.stack) {
		if r.Type != "pulumi:providers:endpoints" || logicalName(r.URN) != "cluster" {
			continue
		}
		found = true
		for _, key := range envSettings {
			if v, ok := r.Inputs[key]; ok {
				t.Errorf("the state records the explicit provider's %s as %v, which the program does not set", key, v)
			}
		}
	}
	if !found {
		t.Fatal("the state holds no explicit provider named cluster")
	}
	if n := resources(t, p.stack, spec.EndpointSliceToken); n != 1 {
		t.Fatalf("after up, the state has %d slices, want 1", n)
	}

	proxy.Cut()
	hinted(t, p.stack, dropHint, destroyCmd...)
	p.stack.runEnv([]string{dropEnv}, destroyCmd...)
	emptied(t, p.stack, "a destroy with "+dropEnv)
}
