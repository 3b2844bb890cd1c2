package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// identityProgram is an autonamed slice and an EndpointsList item in a namespace;
// port is the slice's port.
const identityProgram = `name: e2e-identity
runtime: yaml
resources:
  slice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.1"]
      ports:
        - name: http
          port: %[2]d
  list:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata:
            name: web
            namespace: %[1]s
          subsets:
            - addresses:
                - ip: 10.0.0.2
              ports:
                - name: http
                  port: 80
outputs:
  sliceName: ${slice.metadata.name}
`

// changes returns the operations other than "same".
func changes(ops map[string][]string) map[string][]string {
	out := map[string][]string{}
	for name, list := range ops {
		for _, op := range list {
			if op != "same" {
				out[name] = append(out[name], op)
			}
		}
	}
	return out
}

// writeKubeconfig writes a kubeconfig document to path.
func writeKubeconfig(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// objectsOn reports whether the slice and the Endpoints item exist on a control plane.
func objectsOn(t *testing.T, cp *controlplane.ControlPlane, ns, slice string) (bool, bool) {
	t.Helper()
	_, errSlice := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), slice, metav1.GetOptions{})
	_, errEndpoints := cp.Clientset().CoreV1().Endpoints(ns).Get(t.Context(), "web", metav1.GetOptions{})
	for _, err := range []error{errSlice, errEndpoints} {
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("reading the objects: %v", err)
		}
	}
	return errSlice == nil, errEndpoints == nil
}

// The cluster a stack's kubeconfig reaches decides where its objects live: pointed at
// another cluster, the preview shows their replacement, and up creates them there and
// deletes them from the old one; refresh, preview and destroy then work on the new
// one. Rotated credentials, renamed users and contexts, a moved file and a
// clusterIdentifier that vouches for a new address change nothing.
func TestClusterIdentity(t *testing.T) {
	t.Parallel()
	a := controlplane.Shared(t)
	b := controlplane.StartT(t)
	ns := a.Namespace(t, "e2e")
	b.NamedNamespace(t, ns)
	dir := t.TempDir()
	kubeconfig := writeKubeconfig(t, filepath.Join(dir, "config"), a.Kubeconfig())

	s := newStack(t, kubeconfig)
	s.init(fmt.Sprintf(identityProgram, ns, 80))
	s.Run("up", "--yes", "--non-interactive")
	slice := stackOutputs(t, s)["sliceName"]
	if onA, itemOnA := objectsOn(t, a, ns, slice); !onA || !itemOnA {
		t.Fatalf("after up on cluster A: slice %v, Endpoints %v; want both", onA, itemOnA)
	}

	phase(t, "rotated credentials, renamed user and context, moved file: no changes", func() {
		rules := []rbacv1.PolicyRule{
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"},
				Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
			{APIGroups: []string{""}, Resources: []string{"endpoints"},
				Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
		}
		minted, err := a.MintClusterIdentity(t.Context(), "deployer", ns, rules)
		if err != nil {
			t.Fatal(err)
		}
		moved := writeKubeconfig(t, filepath.Join(dir, "moved-config"), minted)
		env := []string{"KUBECONFIG=" + moved}
		if got := changes(s.previewOps(env...)); len(got) != 0 {
			t.Errorf("preview with rotated credentials shows changes: %v", got)
		}
		// The change of a port goes through with the new identity alone.
		s.WriteProject(fmt.Sprintf(identityProgram, ns, 8080))
		s.runEnv(env, "up", "--yes", "--non-interactive")
		live, err := a.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), slice, metav1.GetOptions{})
		if err != nil || *live.Ports[0].Port != 8080 {
			t.Fatalf("after the update with rotated credentials: %v, %+v", err, live)
		}
		if !writtenBy(live.ManagedFields, "pulumi-resource-endpoints") {
			t.Errorf("slice not written by the provider: %+v", live.ManagedFields)
		}
		s.runEnv(env, "preview", "--non-interactive", "--expect-no-changes")
		// The kubeconfig setting names the file now, not KUBECONFIG.
		s.Run("config", "set", "endpoints:kubeconfig", moved)
		if got := changes(s.previewOps()); len(got) != 0 {
			t.Errorf("preview with the kubeconfig setting naming the same cluster shows changes: %v", got)
		}
		s.Run("up", "--yes", "--non-interactive")
		s.Run("config", "rm", "endpoints:kubeconfig")
		s.Run("up", "--yes", "--non-interactive")
		// KUBECONFIG as a list: a missing file is skipped, the next one serves.
		list := []string{"KUBECONFIG=" + filepath.Join(dir, "missing") + string(filepath.ListSeparator) + moved}
		if got := changes(s.previewOps(list...)); len(got) != 0 {
			t.Errorf("preview with KUBECONFIG listing the same cluster's file shows changes: %v", got)
		}
		s.WriteProject(fmt.Sprintf(identityProgram, ns, 8081))
		out := s.runEnv(list, "up", "--yes", "--non-interactive")
		if strings.Contains(out, "using the kubeconfig recorded") {
			t.Errorf("up with KUBECONFIG as a list did not read the list:\n%s", out)
		}
		live, err = a.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), slice, metav1.GetOptions{})
		if err != nil || *live.Ports[0].Port != 8081 {
			t.Fatalf("after the update with KUBECONFIG as a list: %v, %+v", err, live)
		}
		s.WriteProject(fmt.Sprintf(identityProgram, ns, 8080))
		s.Run("up", "--yes", "--non-interactive")
	})

	phase(t, "a clusterIdentifier vouches for another address of the same cluster", func() {
		env := []string{"PULUMI_ENDPOINTS_CLUSTER_IDENTIFIER=cluster-a"}
		s.runEnv(env, "up", "--yes", "--non-interactive")
		other := otherAddress(t, a.Kubeconfig())
		env = append(env, "KUBECONFIG="+writeKubeconfig(t, filepath.Join(dir, "other-address"), other))
		if got := changes(s.previewOps(env...)); len(got) != 0 {
			t.Errorf("preview with the same clusterIdentifier and another server URL shows changes: %v", got)
		}
		s.runEnv(env, "up", "--yes", "--non-interactive", "--expect-no-changes")
		s.runEnv(env, "refresh", "--yes", "--non-interactive", "--expect-no-changes")
		if onA, itemOnA := objectsOn(t, a, ns, slice); !onA || !itemOnA {
			t.Errorf("after up with the clusterIdentifier: slice %v, Endpoints %v; want both", onA, itemOnA)
		}
		// Back to the first address under the identifier, then without it: the
		// derived identity recorded is that of the first address again.
		s.runEnv(env[:1], "up", "--yes", "--non-interactive", "--expect-no-changes")
		s.Run("preview", "--non-interactive", "--expect-no-changes")
	})

	phase(t, "another cluster: replaced there, deleted here", func() {
		writeKubeconfig(t, kubeconfig, b.Kubeconfig())
		// Refresh works on the state's cluster until up moves the objects: it finds
		// them on cluster A and says why it reads A.
		out := s.Run("refresh", "--yes", "--non-interactive", "--expect-no-changes")
		if !strings.Contains(out, "the kubeconfig now reaches cluster "+b.RESTConfig().Host) {
			t.Errorf("refresh after the switch does not say it reads the recorded cluster:\n%s", out)
		}
		ops := s.previewOps()
		for _, name := range []string{"slice", "list"} {
			if !slices.Contains(ops[name], "replace") && !slices.Contains(ops[name], "create-replacement") {
				t.Errorf("preview of %s after the switch: %v, want its replacement", name, ops[name])
			}
		}
		// The engine asks DiffConfig again for each object of the replaced provider;
		// the replacement is still said once, not once per object.
		replaced := 0
		for _, w := range s.previewWarnings() {
			if strings.Contains(w, "the provider is replaced") {
				replaced++
			}
		}
		if replaced != 1 {
			t.Errorf("preview after the switch warned %d times that the provider is replaced, want once", replaced)
		}
		if onB, itemOnB := objectsOn(t, b, ns, slice); onB || itemOnB {
			t.Fatalf("the preview wrote to cluster B: slice %v, Endpoints %v", onB, itemOnB)
		}
		s.Run("up", "--yes", "--non-interactive")
		slice = stackOutputs(t, s)["sliceName"]
		if onB, itemOnB := objectsOn(t, b, ns, slice); !onB || !itemOnB {
			t.Errorf("after up on cluster B: slice %v, Endpoints %v; want both", onB, itemOnB)
		}
		if onA, itemOnA := objectsOn(t, a, ns, slice); onA || itemOnA {
			t.Errorf("after up on cluster B, cluster A still holds: slice %v, Endpoints %v", onA, itemOnA)
		}
		s.Run("refresh", "--yes", "--non-interactive", "--expect-no-changes")
		s.Run("preview", "--non-interactive", "--expect-no-changes")
	})

	phase(t, "an unreachable cluster", func() {
		slice = unreachable(t, s, b, ns, slice, fmt.Sprintf(identityProgram, ns, 9090))
	})

	s.Run("destroy", "--yes", "--non-interactive")
	if onB, itemOnB := objectsOn(t, b, ns, slice); onB || itemOnB {
		t.Errorf("after destroy, cluster B still holds: slice %v, Endpoints %v", onB, itemOnB)
	}
}

// unreachable stops the cluster's API server under a stack whose objects live there:
// a preview falls back to Check with one warning naming the server; refresh, up and
// destroy fail within the request timeout naming the server and the object;
// skipUpdateUnreachable keeps the last state, deleteUnreachable drops the objects from
// the state. It starts the API server again, and the stack's objects are created
// again, before it returns the slice's new name.
func unreachable(t *testing.T, s *stack, cp *controlplane.ControlPlane, ns, slice, changed string) string {
	t.Helper()
	server := cp.RESTConfig().Host
	cp.StopAPIServer()
	restarted := false
	restart := func() {
		if !restarted {
			restarted = true
			if err := cp.StartAPIServer(t.Context()); err != nil {
				t.Fatalf("start the API server again: %v", err)
			}
		}
	}
	defer restart()
	// Short timeouts bound the failures; connection refused fails at once anyway.
	fast := []string{"PULUMI_ENDPOINTS_CLIENT_REQUEST_TIMEOUT=5s"}
	bounded := func(what string, began time.Time) {
		t.Helper()
		if took := time.Since(began); took > 2*time.Minute {
			t.Errorf("%s took %v against an unreachable cluster", what, took)
		}
	}

	s.WriteProject(changed)
	began := time.Now()
	out := s.runEnv(fast, "preview", "--non-interactive", "--diff")
	bounded("preview", began)
	warning := regexp.MustCompile(`the Kubernetes API server ` + regexp.QuoteMeta(server) + ` is unreachable`)
	if n := len(warning.FindAllString(out, -1)); n != 1 {
		t.Errorf("preview against an unreachable cluster: %d warnings naming %s, want 1:\n%s", n, server, out)
	}

	for _, args := range [][]string{
		{"refresh", "--yes", "--non-interactive"},
		{"up", "--yes", "--non-interactive", "--skip-preview"},
		{"destroy", "--yes", "--non-interactive", "--skip-preview"},
	} {
		began := time.Now()
		out, err := s.With(fast...).Try(args...)
		bounded(args[0], began)
		if err == nil {
			t.Errorf("pulumi %s against an unreachable cluster succeeded:\n%s", args[0], out)
			continue
		}
		if !warning.MatchString(out) || !strings.Contains(out, ns+"/") {
			t.Errorf("pulumi %s failed without naming the server %s and the object:\n%s", args[0], server, out)
		}
	}

	// skipUpdateUnreachable: the update keeps the last state, with a warning.
	out = s.runEnv(append(fast, "PULUMI_ENDPOINTS_SKIP_UPDATE_UNREACHABLE=true"), "up", "--yes", "--non-interactive", "--skip-preview")
	if !strings.Contains(out, "skipUpdateUnreachable is set") {
		t.Errorf("up with skipUpdateUnreachable does not warn:\n%s", out)
	}

	// deleteUnreachable: refresh drops the objects from the state, with a warning.
	out = s.runEnv(append(fast, "PULUMI_ENDPOINTS_DELETE_UNREACHABLE=true"), "refresh", "--yes", "--non-interactive")
	if !strings.Contains(out, "deleteUnreachable is set") {
		t.Errorf("refresh with deleteUnreachable does not warn:\n%s", out)
	}
	restart()
	// The objects were only dropped from the state: they are still on the cluster, and
	// the next up adopts nothing but creates them again, so remove them first.
	if onB, itemOnB := objectsOn(t, cp, ns, slice); !onB || !itemOnB {
		t.Errorf("deleteUnreachable deleted objects from the cluster: slice %v, Endpoints %v", onB, itemOnB)
	}
	cs := cp.Clientset()
	if err := cs.DiscoveryV1().EndpointSlices(ns).Delete(t.Context(), slice, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Endpoints(ns).Delete(t.Context(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	s.Run("up", "--yes", "--non-interactive")
	s.Run("preview", "--non-interactive", "--expect-no-changes")
	return stackOutputs(t, s)["sliceName"]
}

// phase runs one step of a test whose steps build on each other (so they cannot run
// as parallel subtests), naming it in the log.
func phase(t *testing.T, name string, step func()) {
	t.Helper()
	t.Logf("phase: %s", name)
	step()
}

// otherAddress rewrites an admin kubeconfig to reach the same API server by another
// URL (localhost instead of 127.0.0.1, verified as 127.0.0.1).
func otherAddress(t *testing.T, kubeconfig []byte) []byte {
	t.Helper()
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cfg.Clusters {
		c.Server = strings.Replace(c.Server, "127.0.0.1", "localhost", 1)
		c.TLSServerName = "127.0.0.1"
	}
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// twoContexts rewrites an admin kubeconfig of one context into one of two: "second",
// the admin's, and "first", the current one, whose server refuses connections.
func twoContexts(t *testing.T, kubeconfig []byte) []byte {
	t.Helper()
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	admin := cfg.Contexts[cfg.CurrentContext]
	if admin == nil {
		t.Fatalf("the kubeconfig has no current context %q", cfg.CurrentContext)
	}
	delete(cfg.Contexts, cfg.CurrentContext)
	cfg.Contexts["second"] = admin
	elsewhere := clientcmdapi.NewCluster()
	elsewhere.Server, elsewhere.InsecureSkipTLSVerify = "https://127.0.0.1:1", true
	cfg.Clusters["elsewhere"] = elsewhere
	first := clientcmdapi.NewContext()
	first.Cluster, first.AuthInfo = "elsewhere", admin.AuthInfo
	cfg.Contexts["first"] = first
	cfg.CurrentContext = "first"
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The endpoints:context setting serves from the first command after it is set, though
// the kubeconfig's current context reaches another server: the preview finds nothing
// to change and the up writes through the chosen context, neither saying that the
// objects are on another cluster than the kubeconfig reaches.
func TestContextSettingServesAtOnce(t *testing.T) {
	t.Parallel()
	a := controlplane.Shared(t)
	ns := a.Namespace(t, "e2e")
	dir := t.TempDir()
	s := newStack(t, writeKubeconfig(t, filepath.Join(dir, "config"), a.Kubeconfig()))
	s.init(fmt.Sprintf(identityProgram, ns, 80))
	s.Run("up", "--yes", "--non-interactive")
	slice := stackOutputs(t, s)["sliceName"]

	env := []string{"KUBECONFIG=" + writeKubeconfig(t, filepath.Join(dir, "two"), twoContexts(t, a.Kubeconfig()))}
	s.Run("config", "set", "endpoints:context", "second")
	// Neither falls back to the recorded kubeconfig, nor meets the current context's
	// server, which refuses connections.
	usedOther := func(out string) bool {
		return strings.Contains(out, "using the kubeconfig recorded") || strings.Contains(out, "127.0.0.1:1")
	}
	if out := s.runEnv(env, "preview", "--non-interactive", "--expect-no-changes"); usedOther(out) {
		t.Errorf("the preview after endpoints:context was set did not use it:\n%s", out)
	}
	s.WriteProject(fmt.Sprintf(identityProgram, ns, 8080))
	if out := s.runEnv(env, "up", "--yes", "--non-interactive"); usedOther(out) {
		t.Errorf("the up after endpoints:context was set did not use it:\n%s", out)
	}
	live, err := a.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), slice, metav1.GetOptions{})
	if err != nil || *live.Ports[0].Port != 8080 {
		t.Fatalf("after the up through the context of the setting: %v, %+v", err, live)
	}
}

func writtenBy(fields []metav1.ManagedFieldsEntry, manager string) bool {
	for _, f := range fields {
		if f.Manager == manager {
			return true
		}
	}
	return false
}

// explicitProviderProgram is a slice managed by an explicit provider with client
// settings of every kind: %[2]s is the provider's extra properties.
const explicitProviderProgram = `name: e2e-explicit-provider
runtime: yaml
resources:
  cluster:
    type: pulumi:providers:endpoints
    properties:
      kubeconfig: %[3]s
%[2]s
  slice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.1"]
    options:
      provider: ${cluster}
outputs:
  sliceName: ${slice.metadata.name}
`

// An explicit provider takes the client settings as numbers and booleans; a bad
// value fails the preview naming the key and the rule.
func TestExplicitProviderClientSettings(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	s := newStack(t, filepath.Join(t.TempDir(), "no-such-kubeconfig"))
	good := "      qps: 50\n      burst: 100\n      requestTimeout: 10s\n      deleteUnreachable: false\n      skipUpdateUnreachable: true"
	s.init(fmt.Sprintf(explicitProviderProgram, ns, good, cp.KubeconfigPath()))
	s.Run("up", "--yes", "--non-interactive")
	slice := stackOutputs(t, s)["sliceName"]
	if onCluster, _ := objectsOn(t, cp, ns, slice); !onCluster {
		t.Fatalf("slice %s/%s not created by the explicit provider", ns, slice)
	}
	s.Run("preview", "--non-interactive", "--expect-no-changes")

	for _, bad := range []struct{ props, env, want string }{
		{props: "      qps: -1", want: "qps must be a number greater than 0 (requests per second), not -1"},
		{props: "      burst: 0.5", want: "burst must be an integer, not 0.5"},
		{props: "      requestTimeout: soon", want: `requestTimeout must be a positive duration such as 30s or 2m, not "soon"`},
		{props: "      qps: 50", env: "PULUMI_ENDPOINTS_DELETE_UNREACHABLE=maybe",
			want: `deleteUnreachable must be true or false, not "maybe" (from the PULUMI_ENDPOINTS_DELETE_UNREACHABLE environment variable)`},
	} {
		s.WriteProject(fmt.Sprintf(explicitProviderProgram, ns, bad.props, cp.KubeconfigPath()))
		var env []string
		if bad.env != "" {
			env = append(env, bad.env)
		}
		out, err := s.With(env...).Try("preview", "--non-interactive")
		if err == nil || !strings.Contains(out, bad.want) {
			t.Errorf("preview with %q: err = %v, want a failure saying %q:\n%s", strings.TrimSpace(bad.props), err, bad.want, out)
		}
	}
	s.WriteProject(fmt.Sprintf(explicitProviderProgram, ns, good, cp.KubeconfigPath()))
	s.Run("destroy", "--yes", "--non-interactive")
	if onCluster, _ := objectsOn(t, cp, ns, slice); onCluster {
		t.Errorf("slice %s/%s still exists after destroy", ns, slice)
	}
}
