package provider

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
)

// testCA returns a PEM self-signed CA certificate.
func testCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "test-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// kubeconfigDoc is one kubeconfig: a cluster, a user with a token and a context.
type kubeconfigDoc struct {
	server, cluster, user, context, token string
	ca                                    []byte
	caFile                                string
	proxy                                 string
}

func (k kubeconfigDoc) bytes(t *testing.T) []byte {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[k.cluster] = &clientcmdapi.Cluster{
		Server: k.server, CertificateAuthorityData: k.ca, CertificateAuthority: k.caFile, ProxyURL: k.proxy,
	}
	cfg.AuthInfos[k.user] = &clientcmdapi.AuthInfo{Token: k.token}
	cfg.Contexts[k.context] = &clientcmdapi.Context{Cluster: k.cluster, AuthInfo: k.user}
	cfg.CurrentContext = k.context
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func (k kubeconfigDoc) write(t *testing.T, path string) string {
	t.Helper()
	if err := os.WriteFile(path, k.bytes(t), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkedConfig runs CheckConfig, failing the test on failures.
func checkedConfig(t *testing.T, env map[string]string, args map[string]property.Value) property.Map {
	t.Helper()
	srv, _ := newTestServer(t, func(k string) string { return env[k] })
	resp, err := srv.CheckConfig(p.CheckRequest{Inputs: property.NewMap(args)})
	if err != nil {
		t.Fatalf("CheckConfig: %v", err)
	}
	if len(resp.Failures) > 0 {
		t.Fatalf("CheckConfig failures: %+v", resp.Failures)
	}
	return resp.Inputs
}

// configDiff runs DiffConfig from one checked configuration to another.
func configDiff(t *testing.T, olds, news property.Map) p.DiffResponse {
	t.Helper()
	srv, _ := newTestServer(t, noEnv)
	resp, err := srv.DiffConfig(p.DiffRequest{State: olds, OldInputs: olds, Inputs: news})
	if err != nil {
		t.Fatalf("DiffConfig: %v", err)
	}
	return resp
}

// assertReaches checks the server the client reaches and the token it sends.
func assertReaches(t *testing.T, c *kube.Client, host, token string) {
	t.Helper()
	if c.REST.Host != host || c.REST.BearerToken != token {
		t.Errorf("client reaches %s with token %q, want %s with %q", c.REST.Host, c.REST.BearerToken, host, token)
	}
}

// diffKinds summarizes a diff as key -> kind.
func diffKinds(d p.DiffResponse) map[string]p.DiffKind {
	out := map[string]p.DiffKind{}
	for k, v := range d.DetailedDiff {
		out[k] = v.Kind
	}
	return out
}

// configuration is one side of a DiffConfig case: files to write (name -> document),
// the environment and the settings; "$dir" in either is the test's directory.
type configuration struct {
	files map[string]kubeconfigDoc
	env   map[string]string
	args  map[string]string
	// unknown lists settings whose values are unknown (a preview).
	unknown []string
}

func (c configuration) checked(t *testing.T, dir string) property.Map {
	t.Helper()
	for name, doc := range c.files {
		doc.write(t, filepath.Join(dir, name))
	}
	expand := func(s string) string { return strings.ReplaceAll(s, "$dir", dir) }
	env := map[string]string{}
	for k, v := range c.env {
		env[k] = expand(v)
	}
	args := map[string]property.Value{}
	for k, v := range c.args {
		args[k] = property.New(expand(v))
	}
	for _, k := range c.unknown {
		args[k] = property.New(property.Computed)
	}
	return checkedConfig(t, env, args)
}

func TestDiffConfigReplacesOnlyWhenTheClusterChanges(t *testing.T) {
	t.Parallel()
	caA, caB := testCA(t), testCA(t)
	a := kubeconfigDoc{server: "https://10.0.0.1:6443", cluster: "a", user: "admin", context: "a", token: "t1", ca: caA}
	rotated := a
	rotated.token = "t2"
	renamed := a
	renamed.cluster, renamed.user, renamed.context = "prod", "deployer", "prod-ctx"
	proxied := a
	proxied.proxy = "http://127.0.0.1:3128"
	b := kubeconfigDoc{server: "https://10.0.0.2:6443", cluster: "a", user: "admin", context: "a", token: "t1", ca: caB}
	newCA := a
	newCA.ca = caB
	trailingSlash := a
	trailingSlash.server += "/"
	caFile := a
	caFile.ca, caFile.caFile = nil, "$dir/ca.pem"

	file := func(doc kubeconfigDoc) configuration {
		return configuration{files: map[string]kubeconfigDoc{"config": doc}, args: map[string]string{"kubeconfig": "$dir/config"}}
	}
	withArgs := func(c configuration, kv ...string) configuration {
		args := map[string]string{}
		for k, v := range c.args {
			args[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			args[kv[i]] = kv[i+1]
		}
		c.args = args
		return c
	}
	replace := p.UpdateReplace
	tests := []struct {
		name     string
		old, cur configuration
		want     map[string]p.DiffKind
	}{
		{name: "nothing changed", old: file(a), cur: file(a), want: map[string]p.DiffKind{}},
		{name: "rotated credentials", old: file(a), cur: file(rotated), want: map[string]p.DiffKind{}},
		{name: "renamed cluster, user and context", old: file(a), cur: file(renamed), want: map[string]p.DiffKind{}},
		{name: "a proxy added", old: file(a), cur: file(proxied), want: map[string]p.DiffKind{}},
		{name: "a trailing slash on the server URL", old: file(a), cur: file(trailingSlash), want: map[string]p.DiffKind{}},
		{
			name: "the kubeconfig file moved",
			old:  file(a),
			cur:  configuration{files: map[string]kubeconfigDoc{"moved": rotated}, args: map[string]string{"kubeconfig": "$dir/moved"}},
			want: map[string]p.DiffKind{},
		},
		{
			name: "the file replaced by its contents",
			old:  file(a),
			cur:  configuration{args: map[string]string{"kubeconfig": string(renamed.bytes(t))}},
			want: map[string]p.DiffKind{},
		},
		{
			name: "the CA inlined from its file",
			old: configuration{
				files: map[string]kubeconfigDoc{"config": caFile},
				args:  map[string]string{"kubeconfig": "$dir/config"},
			},
			cur:  file(a),
			want: map[string]p.DiffKind{},
		},
		{name: "another server", old: file(a), cur: file(b), want: map[string]p.DiffKind{"kubeconfig": replace}},
		{
			name: "a cluster switched to a render directory",
			old:  file(a), cur: withArgs(file(a), "renderDirectory", "out"),
			want: map[string]p.DiffKind{"renderDirectory": p.AddReplace},
		},
		{
			name: "a render directory switched to a cluster",
			old:  withArgs(file(a), "renderDirectory", "out"), cur: file(a),
			want: map[string]p.DiffKind{"renderDirectory": p.DeleteReplace},
		},
		{
			name: "another render directory",
			old:  withArgs(file(a), "renderDirectory", "out"), cur: withArgs(file(b), "renderDirectory", "other"),
			want: map[string]p.DiffKind{"renderDirectory": replace},
		},
		{
			name: "the same render directory spelt otherwise, and another cluster in the kubeconfig",
			old:  withArgs(file(a), "renderDirectory", "out"), cur: withArgs(file(b), "renderDirectory", "./out/"),
			want: map[string]p.DiffKind{},
		},
		{
			name: "PULUMI_ENDPOINTS_RENDER_DIRECTORY now names a directory",
			old:  file(a),
			cur:  configuration{files: map[string]kubeconfigDoc{"config": a}, args: map[string]string{"kubeconfig": "$dir/config"}, env: map[string]string{"PULUMI_ENDPOINTS_RENDER_DIRECTORY": "out"}},
			want: map[string]p.DiffKind{"renderDirectory": replace},
		},
		{name: "the same server with another CA", old: file(a), cur: file(newCA), want: map[string]p.DiffKind{"kubeconfig": replace}},
		{
			name: "KUBECONFIG now names another cluster",
			old:  configuration{files: map[string]kubeconfigDoc{"a": a}, env: map[string]string{"KUBECONFIG": "$dir/a"}},
			cur:  configuration{files: map[string]kubeconfigDoc{"b": b}, env: map[string]string{"KUBECONFIG": "$dir/b"}},
			want: map[string]p.DiffKind{"kubeconfig": replace},
		},
		{
			name: "KUBECONFIG now names another file of the same cluster",
			old:  configuration{files: map[string]kubeconfigDoc{"a": a}, env: map[string]string{"KUBECONFIG": "$dir/a"}},
			cur:  configuration{files: map[string]kubeconfigDoc{"c": renamed}, env: map[string]string{"KUBECONFIG": "$dir/c"}},
			want: map[string]p.DiffKind{},
		},
		{
			name: "another context of the same file reaches another cluster",
			old: configuration{
				files: map[string]kubeconfigDoc{"a": a, "b": {server: b.server, cluster: "b", user: "ub", context: "b", token: "x", ca: caB}},
				env:   map[string]string{"KUBECONFIG": "$dir/a:$dir/b"},
			},
			cur: configuration{
				files: map[string]kubeconfigDoc{"a": a, "b": {server: b.server, cluster: "b", user: "ub", context: "b", token: "x", ca: caB}},
				env:   map[string]string{"KUBECONFIG": "$dir/a:$dir/b"},
				args:  map[string]string{"context": "b"},
			},
			want: map[string]p.DiffKind{"context": p.AddReplace},
		},
		{
			name: "the same clusterIdentifier while the server changes",
			old:  withArgs(file(a), "clusterIdentifier", "prod"),
			cur:  withArgs(file(b), "clusterIdentifier", "prod"),
			want: map[string]p.DiffKind{},
		},
		{
			name: "another clusterIdentifier for the same server",
			old:  withArgs(file(a), "clusterIdentifier", "prod"),
			cur:  withArgs(file(a), "clusterIdentifier", "prod-2"),
			want: map[string]p.DiffKind{"clusterIdentifier": replace},
		},
		{
			name: "a clusterIdentifier from the environment while the server changes",
			old:  configuration{files: map[string]kubeconfigDoc{"a": a}, env: map[string]string{"KUBECONFIG": "$dir/a", "PULUMI_ENDPOINTS_CLUSTER_IDENTIFIER": "prod"}},
			cur:  configuration{files: map[string]kubeconfigDoc{"b": b}, env: map[string]string{"KUBECONFIG": "$dir/b", "PULUMI_ENDPOINTS_CLUSTER_IDENTIFIER": "prod"}},
			want: map[string]p.DiffKind{},
		},
		{
			name: "a clusterIdentifier added for the same cluster",
			old:  file(a),
			cur:  withArgs(file(a), "clusterIdentifier", "prod"),
			want: map[string]p.DiffKind{"clusterIdentifier": p.Add},
		},
		{
			name: "a clusterIdentifier added while the cluster changes",
			old:  file(a),
			cur:  withArgs(file(b), "clusterIdentifier", "prod"),
			want: map[string]p.DiffKind{"clusterIdentifier": p.AddReplace},
		},
		{
			name: "an unknown kubeconfig in a preview",
			old:  file(a),
			cur:  configuration{unknown: []string{"kubeconfig"}},
			want: map[string]p.DiffKind{"kubeconfig": p.Update},
		},
		{
			name: "an unreadable kubeconfig",
			old:  file(a),
			cur:  configuration{args: map[string]string{"kubeconfig": "$dir/missing"}},
			want: map[string]p.DiffKind{"kubeconfig": p.Update},
		},
		{
			name: "another default namespace is an update",
			old:  file(a),
			cur:  withArgs(file(rotated), "namespace", "team-a"),
			want: map[string]p.DiffKind{"namespace": p.Add},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// One directory: the new configuration's files replace the old ones after
			// CheckConfig recorded what they said, as an edit in place would.
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "ca.pem"), caA, 0o600); err != nil {
				t.Fatal(err)
			}
			olds := tt.old.checked(t, dir)
			news := tt.cur.checked(t, dir)
			got := configDiff(t, olds, news)
			if diff := cmp.Diff(tt.want, diffKinds(got)); diff != "" {
				t.Errorf("DiffConfig (-want +got):\n%s", diff)
			}
			if got.HasChanges != (len(tt.want) > 0) {
				t.Errorf("HasChanges = %v with detailed diff %v", got.HasChanges, diffKinds(got))
			}
		})
	}
}

// A state written before the provider recorded clusters replaces nothing.
func TestDiffConfigWithoutARecordedClusterReplacesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := kubeconfigDoc{server: "https://10.0.0.1:6443", cluster: "a", user: "u", context: "a", token: "t", ca: testCA(t)}
	b := a
	b.server = "https://10.0.0.2:6443"
	olds := property.NewMap(map[string]property.Value{"kubeconfig": property.New(a.write(t, filepath.Join(dir, "a")))})
	news := checkedConfig(t, nil, map[string]property.Value{"kubeconfig": property.New(b.write(t, filepath.Join(dir, "b")))})
	got := configDiff(t, olds, news)
	if diff := cmp.Diff(map[string]p.DiffKind{"kubeconfig": p.Update}, diffKinds(got)); diff != "" {
		t.Errorf("DiffConfig (-want +got):\n%s", diff)
	}
}

// CheckConfig records the cluster, and the kubeconfig of the context in use as a
// secret, unless the setting holds the contents.
func TestCheckConfigRecordsTheCluster(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca := testCA(t)
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), ca, 0o600); err != nil {
		t.Fatal(err)
	}
	doc := kubeconfigDoc{server: "https://10.0.0.1:6443", cluster: "a", user: "u", context: "a", token: "secret-token", caFile: filepath.Join(dir, "ca.pem")}
	path := doc.write(t, filepath.Join(dir, "config"))

	inputs := checkedConfig(t, nil, map[string]property.Value{"kubeconfig": property.New(path)})
	rec := clusterRecordOf(inputs)
	if rec.Cluster.Server != doc.server || !strings.HasPrefix(rec.Cluster.CA, "sha256:") {
		t.Errorf("recorded cluster = %+v, want server %s and a CA hash", rec.Cluster, doc.server)
	}
	snapshot := inputs.Get(kubeconfigKey)
	if !snapshot.Secret() {
		t.Errorf("%s is not secret", kubeconfigKey)
	}
	raw, err := clientcmd.Load([]byte(rec.Kubeconfig))
	if err != nil {
		t.Fatalf("recorded kubeconfig does not load: %v", err)
	}
	if c := raw.Clusters["a"]; c == nil || string(c.CertificateAuthorityData) != string(ca) || c.CertificateAuthority != "" {
		t.Errorf("recorded kubeconfig does not inline the CA file: %+v", raw.Clusters)
	}

	inline := checkedConfig(t, nil, map[string]property.Value{"kubeconfig": property.New(string(doc.bytes(t)))})
	if _, ok := inline.GetOk(kubeconfigKey); ok {
		t.Errorf("inline contents recorded again under %s", kubeconfigKey)
	}
	if !clusterRecordOf(inline).Cluster.Same(rec.Cluster) {
		t.Errorf("inline contents recorded %+v, the file %+v", clusterRecordOf(inline).Cluster, rec.Cluster)
	}

	// A configuration for the Google lookups alone records nothing and fails nothing.
	none := checkedConfig(t, map[string]string{"KUBECONFIG": filepath.Join(dir, "missing")},
		map[string]property.Value{"project": property.New("p")})
	if keys := slices.Collect(func(yield func(string) bool) {
		for k := range none.All {
			if !yield(k) {
				return
			}
		}
	}); slices.Contains(keys, clusterKey) || slices.Contains(keys, kubeconfigKey) {
		t.Errorf("recorded a cluster without a kubeconfig: %v", keys)
	}
}

// A provider configured from an old state reaches the cluster its objects are on:
// with the kubeconfig as it is now when that still reaches the same cluster (so new
// credentials serve), with the recorded one when it reaches another cluster or cannot
// be read, and always with the kubeconfig as it is now under a clusterIdentifier.
func TestConfigureReachesTheRecordedCluster(t *testing.T) {
	t.Parallel()
	a := kubeconfigDoc{server: "https://10.0.0.1:6443", cluster: "a", user: "u", context: "a", token: "t1", ca: testCA(t)}
	rotated := a
	rotated.token = "t2"
	b := kubeconfigDoc{server: "https://10.0.0.2:6443", cluster: "b", user: "u", context: "b", token: "tb", ca: testCA(t)}
	tests := []struct {
		name       string
		identifier string
		now        *kubeconfigDoc // nil: the file is gone
		wantHost   string
		wantToken  string
		fallback   bool
	}{
		{name: "same cluster, new credentials", now: &rotated, wantHost: a.server, wantToken: "t2"},
		{name: "another cluster", now: &b, wantHost: a.server, wantToken: "t1", fallback: true},
		{name: "the file is gone", wantHost: a.server, wantToken: "t1", fallback: true},
		{name: "a clusterIdentifier vouches for the new server", identifier: "prod", now: &b, wantHost: b.server, wantToken: "tb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := a.write(t, filepath.Join(t.TempDir(), "config"))
			args := map[string]property.Value{"kubeconfig": property.New(path)}
			if tt.identifier != "" {
				args["clusterIdentifier"] = property.New(tt.identifier)
			}
			olds := checkedConfig(t, nil, args)
			if tt.now != nil {
				tt.now.write(t, path)
			} else if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			srv, s := newTestServer(t, noEnv)
			c := configuredClient(t, srv, s, olds)
			assertReaches(t, c, tt.wantHost, tt.wantToken)
			if (c.Fallback != "") != tt.fallback {
				t.Errorf("fallback = %q, want one: %v", c.Fallback, tt.fallback)
			}
			if tt.fallback && !strings.Contains(c.Fallback, a.server) {
				t.Errorf("fallback %q does not name the recorded server %s", c.Fallback, a.server)
			}
		})
	}
}

// When DiffConfig finds only changes that keep the cluster, the engine configures the
// provider with the old inputs; the provider uses the new ones (the new credentials).
func TestConfigureAfterAnUnchangedDiffUsesTheNewCredentials(t *testing.T) {
	t.Parallel()
	a := kubeconfigDoc{server: "https://10.0.0.1:6443", cluster: "a", user: "u", context: "a", token: "old-token", ca: testCA(t)}
	rotated := a
	rotated.user, rotated.token = "v", "new-token"
	olds := checkedConfig(t, nil, map[string]property.Value{"kubeconfig": property.New(string(a.bytes(t)))})
	news := checkedConfig(t, nil, map[string]property.Value{"kubeconfig": property.New(string(rotated.bytes(t)))})

	srv, s := newTestServer(t, noEnv)
	diff, err := srv.DiffConfig(p.DiffRequest{State: olds, OldInputs: olds, Inputs: news})
	if err != nil {
		t.Fatalf("DiffConfig: %v", err)
	}
	if diff.HasChanges {
		t.Fatalf("DiffConfig reports changes for rotated credentials: %v", diffKinds(diff))
	}
	c := configuredClient(t, srv, s, olds)
	if c.REST.BearerToken != "new-token" {
		t.Errorf("token = %q, want the rotated one", c.REST.BearerToken)
	}
}

// KUBECONFIG lists several files, merged as kubectl merges them: the first file to
// set a value wins, and missing files are skipped.
func TestKubeconfigListIsMerged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := kubeconfigDoc{server: "https://10.0.0.1:6443", cluster: "c", user: "u", context: "ctx", token: "first", ca: testCA(t)}
	second := kubeconfigDoc{server: "https://10.0.0.2:6443", cluster: "c", user: "u", context: "ctx", token: "second", ca: testCA(t)}
	other := kubeconfigDoc{server: "https://10.0.0.3:6443", cluster: "o", user: "o", context: "other", token: "third", ca: testCA(t)}
	list := strings.Join([]string{
		filepath.Join(dir, "missing"),
		first.write(t, filepath.Join(dir, "first")),
		second.write(t, filepath.Join(dir, "second")),
		other.write(t, filepath.Join(dir, "other")),
	}, string(filepath.ListSeparator))
	tests := []struct {
		name      string
		args      map[string]property.Value
		wantHost  string
		wantToken string
	}{
		{name: "the first file's context", wantHost: first.server, wantToken: "first"},
		{name: "a context from a later file", args: map[string]property.Value{"context": property.New("other")},
			wantHost: other.server, wantToken: "third"},
		{name: "the list copied into the setting", args: map[string]property.Value{"kubeconfig": property.New(list)},
			wantHost: first.server, wantToken: "first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := newTestServer(t, func(k string) string { return map[string]string{"KUBECONFIG": list}[k] })
			c := configuredClient(t, srv, s, property.NewMap(tt.args))
			assertReaches(t, c, tt.wantHost, tt.wantToken)
		})
	}

	// An explicit path is one path, even with a colon in it.
	srv, s := newTestServer(t, noEnv)
	if err := srv.Configure(p.ConfigureRequest{Args: property.NewMap(map[string]property.Value{
		"kubeconfig": property.New(list),
	})}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	if _, err := s.kube.Client(t.Context()); err == nil || !strings.Contains(err.Error(), list) {
		t.Errorf("kube.Client with a list as the kubeconfig setting: err = %v, want it to name the path", err)
	}
}

// The client settings reach the client; unset, the documented defaults apply.
func TestClientSettings(t *testing.T) {
	t.Parallel()
	doc := kubeconfigDoc{server: "https://10.0.0.1:6443", cluster: "a", user: "u", context: "a", token: "t", ca: testCA(t)}
	path := doc.write(t, filepath.Join(t.TempDir(), "config"))
	tests := []struct {
		name      string
		args      map[string]property.Value
		env       map[string]string
		wantQPS   float32
		wantBurst int
		wantTime  time.Duration
	}{
		{name: "defaults", wantQPS: 200, wantBurst: 400, wantTime: 30 * time.Second},
		{name: "settings", args: map[string]property.Value{
			"qps": property.New(20.0), "burst": property.New("40"), "requestTimeout": property.New("2s"),
		}, wantQPS: 20, wantBurst: 40, wantTime: 2 * time.Second},
		{name: "environment", env: map[string]string{
			"PULUMI_ENDPOINTS_CLIENT_QPS": "7.5", "PULUMI_ENDPOINTS_CLIENT_BURST": "9", "PULUMI_ENDPOINTS_CLIENT_REQUEST_TIMEOUT": "90s",
		}, wantQPS: 7.5, wantBurst: 9, wantTime: 90 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := map[string]property.Value{"kubeconfig": property.New(path)}
			for k, v := range tt.args {
				args[k] = v
			}
			srv, s := newTestServer(t, func(k string) string { return tt.env[k] })
			c := configuredClient(t, srv, s, property.NewMap(args))
			if c.REST.QPS != tt.wantQPS || c.REST.Burst != tt.wantBurst || c.REST.Timeout != tt.wantTime {
				t.Errorf("qps, burst, timeout = %v, %v, %v; want %v, %v, %v",
					c.REST.QPS, c.REST.Burst, c.REST.Timeout, tt.wantQPS, tt.wantBurst, tt.wantTime)
			}
		})
	}
}

// Configure rejects bad client settings naming the key and the rule.
func TestConfigureRejectsBadClientSettings(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t, func(k string) string {
		return map[string]string{"PULUMI_ENDPOINTS_CLIENT_QPS": "-3"}[k]
	})
	err := srv.Configure(p.ConfigureRequest{Args: property.NewMap(map[string]property.Value{
		"requestTimeout": property.New("0s"),
	})})
	for _, want := range []string{
		"qps must be a number greater than 0 (requests per second), not -3 (from the PULUMI_ENDPOINTS_CLIENT_QPS environment variable)",
		`requestTimeout must be a positive duration such as 30s or 2m, not "0s"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Configure: err = %v, want it to say %q", err, want)
		}
	}
}

// compareClusters tells same, moved and cannot-compare apart; the identifiers decide
// when both sides have one.
func TestCompareClusters(t *testing.T) {
	t.Parallel()
	a := clusterRecord{ClusterRecord: kube.ClusterRecord{Cluster: kube.Cluster{Server: "https://10.0.0.1:6443", CA: "sha256:a"}}}
	b := clusterRecord{ClusterRecord: kube.ClusterRecord{Cluster: kube.Cluster{Server: "https://10.0.0.2:6443", CA: "sha256:a"}}}
	withID := func(r clusterRecord, id string) clusterRecord { r.Identifier = id; return r }
	tests := []struct {
		name     string
		old, cur clusterRecord
		want     clusterVerdict
		why      string
	}{
		{"same server and CA", a, a, clusterSame, "the cluster is the same"},
		{"another server", a, b, clusterMoved, "the kubeconfig now reaches cluster"},
		{"same identifier, another server", withID(a, "prod"), withID(b, "prod"), clusterSame, "the clusterIdentifier is the same"},
		{"another identifier, same server", withID(a, "prod"), withID(a, "prod-2"), clusterMoved, `the clusterIdentifier changed from "prod" to "prod-2"`},
		{"an identifier on one side only", a, withID(b, "prod"), clusterMoved, "the kubeconfig now reaches cluster"},
		{"nothing recorded before", clusterRecord{}, a, clusterUnknown, ""},
		{"nothing recorded now", a, clusterRecord{}, clusterUnknown, ""},
		{"the same render directory", clusterRecord{Directory: "out"}, clusterRecord{Directory: "out"}, clusterSame, "the render directory is the same"},
		{"another render directory", clusterRecord{Directory: "out"}, clusterRecord{Directory: "x"}, clusterMoved, `the objects' target changed from the render directory "out" to the render directory "x"`},
		{"a cluster to a render directory", a, clusterRecord{Directory: "out"}, clusterMoved, "the objects' target changed from the cluster https://10.0.0.1:6443"},
		{"a render directory to a cluster", clusterRecord{Directory: "out"}, a, clusterMoved, `the objects' target changed from the render directory "out" to the cluster`},
		{"a render directory to a cluster not known yet", clusterRecord{Directory: "out"}, clusterRecord{}, clusterUnknown, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, why := compareClusters(tt.old, tt.cur)
			if got != tt.want || !strings.HasPrefix(why, tt.why) || (tt.why == "") != (why == "") {
				t.Errorf("compareClusters = %v, %q; want %v, %q...", got, why, tt.want, tt.why)
			}
		})
	}
}

// With a render directory CheckConfig records the directory and reads no kubeconfig;
// a provider configured from a state renders where the state records, or reaches the
// recorded cluster, whatever PULUMI_ENDPOINTS_RENDER_DIRECTORY says now.
func TestRenderDirectoryIsTheRecordedTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := kubeconfigDoc{server: "https://10.0.0.1:6443", cluster: "a", user: "u", context: "a", token: "t1", ca: testCA(t)}
	path := a.write(t, filepath.Join(dir, "config"))
	rendered := checkedConfig(t, nil, map[string]property.Value{
		"renderDirectory": property.New("./out/"), "kubeconfig": property.New(path),
	})
	if rec := clusterRecordOf(rendered); rec.Directory != "out" || rec.Cluster.Known() {
		t.Errorf("recorded %+v, want the directory out and no cluster", rec)
	}
	if _, ok := rendered.GetOk(kubeconfigKey); ok {
		t.Errorf("render mode recorded a kubeconfig")
	}
	onCluster := checkedConfig(t, nil, map[string]property.Value{"kubeconfig": property.New(path)})

	env := func(k string) string {
		if k == "PULUMI_ENDPOINTS_RENDER_DIRECTORY" {
			return "elsewhere"
		}
		return ""
	}
	for _, tt := range []struct {
		name  string
		state property.Map
		want  string
	}{
		{"a directory recorded", rendered, "out"},
		{"a cluster recorded", onCluster, ""},
		{"nothing recorded", property.NewMap(map[string]property.Value{}), "elsewhere"},
	} {
		srv, s := newTestServer(t, env)
		if err := srv.Configure(p.ConfigureRequest{Args: tt.state}); err != nil {
			t.Fatalf("%s: Configure: %v", tt.name, err)
		}
		if got := s.kube.Options().Render.Directory; got != tt.want {
			t.Errorf("%s: render directory %q, want %q", tt.name, got, tt.want)
		}
	}
}

// Configure's inputs claim DiffConfig's offer when they hold the same values, whatever
// is marked secret: DiffConfig gets the old inputs revealed, Configure marked.
func TestSameClusterInputsIgnoreSecretMarks(t *testing.T) {
	t.Parallel()
	recorded := property.NewMap(map[string]property.Value{
		kubeconfigKey: property.New("apiVersion: v1"),
		clusterKey:    property.New(map[string]property.Value{"server": property.New("https://a")}),
	})
	marked := recorded.Set(kubeconfigKey, property.New("apiVersion: v1").WithSecret(true)).
		Set(clusterKey, property.New(map[string]property.Value{"server": property.New("https://a").WithSecret(true)}))
	news := recorded.Set("context", property.New("second"))
	for _, tc := range []struct {
		name string
		args property.Map
		want property.Map
	}{
		{"the same values, marked secret", marked, news},
		{"other values", marked.Set(kubeconfigKey, property.New("other")), marked.Set(kubeconfigKey, property.New("other"))},
	} {
		var h sameClusterInputs
		h.offer(recorded, news)
		if got := h.claim(tc.args); !got.Equals(tc.want) {
			t.Errorf("%s: claim = %v, want %v", tc.name, got, tc.want)
		}
		if got := h.claim(tc.args); !got.Equals(tc.args) {
			t.Errorf("%s: a second claim = %v, want the arguments: the offer is spent", tc.name, got)
		}
	}
}
