package examples

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// firstProgramOutputs are the stack outputs of README.md's first program: the names
// pulumi-kubernetes generated for the Services web, legacy and db, in that order.
type firstProgramOutputs struct {
	Services []string `json:"services"`
}

// wantFirstProgramObjects checks the objects of README.md's first program, as
// liveObjects describes them: the slice of the Service web, the Endpoints of legacy
// and db, and the slices the mirroring controller made of them; and that the three
// Services have no selector.
func wantFirstProgramObjects(t *testing.T, cp *controlplane.ControlPlane, ns string, u *user) {
	t.Helper()
	raw, err := toolchain.Command(t.Context(), u.dir, u.env, toolchain.Asset(t, "TEST_ASSET_PULUMI"), "stack", "output", "--json")
	if err != nil {
		t.Fatalf("pulumi stack output: %v\n%s", err, raw)
	}
	var out firstProgramOutputs
	if err := json.Unmarshal([]byte(raw), &out); err != nil || len(out.Services) != 3 {
		t.Fatalf("stack outputs %s: want the names of three Services (err=%v)", raw, err)
	}
	web, legacy, db := out.Services[0], out.Services[1], out.Services[2]
	wantObjects(t, cp, ns, map[string]string{
		"EndpointSlice " + web:     "10.0.0.10,10.0.0.11 notReady - http:8080",
		"Endpoints " + legacy:      "10.0.1.10 notReady - http:8080",
		"Endpoints " + db:          "10.0.2.5 notReady - postgres:5432",
		"mirrored slice " + legacy: "10.0.1.10 notReady - http:8080",
		"mirrored slice " + db:     "10.0.2.5 notReady - postgres:5432",
	})
	for _, name := range out.Services {
		svc, err := cp.Clientset().CoreV1().Services(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get the Service %s/%s: %v", ns, name, err)
		}
		if len(svc.Spec.Selector) > 0 {
			t.Errorf("the Service %s/%s has the selector %v, want none", ns, name, svc.Spec.Selector)
		}
	}
}

// TestReadmeFirstProgram follows README.md's "A first program" as a user does today,
// in each of its languages, each in its own namespace, home directory, PULUMI_HOME and
// backend: in the shell where the installation page's block ran (ENDPOINTS_DIST and
// ENDPOINTS_VERSION exported, this provider's plugin installed from dist/ with
// `pulumi plugin install --file`), the program in an empty directory (TypeScript: the
// project `pulumi new typescript` makes, then the README's ```sh block, which installs
// this provider's SDK from dist/ and pulumi-kubernetes's from npm); `pulumi stack init
// dev` and `pulumi up` (pulumi-kubernetes's plugin, which cannot be downloaded here, is
// installed first, as `pulumi up` would). It checks that the engine used the plugin
// installed from dist/ and downloaded none of this provider's, that pulumi-kubernetes
// ran at the version the tests pin, the objects, that refresh and preview find nothing
// to change, and that `pulumi destroy` leaves nothing, the Services included.
func TestReadmeFirstProgram(t *testing.T) {
	t.Parallel()
	p, err := parseFirstProgram(toolchain.ReadFile(t, filepath.Join(toolchain.RepoRoot(t), "README.md")))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	for _, tc := range []struct {
		lang string
		// write makes the project of the program in the user's empty directory.
		write func(t *testing.T, u *user)
	}{
		{lang: "yaml", write: func(t *testing.T, u *user) {
			t.Helper()
			toolchain.WriteFile(t, filepath.Join(u.dir, "Pulumi.yaml"), p.yaml)
		}},
		{lang: "typescript", write: func(t *testing.T, u *user) {
			t.Helper()
			writeNewTypeScriptProject(t, u.dir)
			u.bash(t, "the README's npm install", p.npmInstall)
			toolchain.WriteFile(t, filepath.Join(u.dir, "index.ts"), p.typescript)
		}},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			t.Parallel()
			cp := controlplane.Shared(t)
			ns := cp.Namespace(t, "readme")
			u := newUser(t, t.TempDir(), cp, ns, languages[tc.lang])
			if err := os.Mkdir(u.dir, 0o700); err != nil { // the copy of no files made none
				t.Fatal(err)
			}
			version := u.installFromDist(t)
			u.installKubernetesPlugin(t)
			tc.write(t, u)
			u.bash(t, "stack init and up", "pulumi stack init dev\npulumi up --yes\n")
			u.wantPluginFromDist(t, version)
			u.wantKubernetesPinned(t)
			wantFirstProgramObjects(t, cp, ns, u)
			u.bash(t, "refresh and preview", refreshAndPreview)
			u.bash(t, "destroy", "pulumi destroy --yes\n")
			wantNothingLeft(t, cp, ns)
		})
	}
}

// installFromDist does what the installation page's block from a clone leaves in the
// user's shell: ENDPOINTS_DIST and ENDPOINTS_VERSION exported (the repository's dist/
// and VERSION) and the plugin of this machine installed from its archive there. It
// returns the version.
func (u *user) installFromDist(t *testing.T) string {
	t.Helper()
	version := toolchain.Version(t)
	u.env = append(u.env, "ENDPOINTS_DIST="+toolchain.Asset(t, "TEST_ASSET_DIST"), "ENDPOINTS_VERSION="+version)
	u.bash(t, "the plugin installed from dist/", `pulumi plugin install resource endpoints "$ENDPOINTS_VERSION" `+
		`--file "$ENDPOINTS_DIST/pulumi-resource-endpoints-v$ENDPOINTS_VERSION-$(go env GOOS)-$(go env GOARCH).tar.gz"`+"\n")
	return version
}

// wantPluginFromDist checks that PULUMI_HOME holds this provider's plugin at version
// only, the one installed from dist/, and that the engine downloaded none.
func (u *user) wantPluginFromDist(t *testing.T, version string) {
	t.Helper()
	if requests := u.reg.Plugin.Requests(); len(requests) > 0 {
		t.Errorf("the engine downloaded this provider's plugin (%v): the program must run with the one installed from dist/", requests)
	}
	var got []string
	for _, name := range toolchain.FileNames(t, filepath.Join(u.home, ".pulumi", "plugins")) {
		if strings.HasPrefix(name, "resource-endpoints-") && !strings.HasSuffix(name, ".lock") && !strings.HasSuffix(name, ".partial") {
			got = append(got, name)
		}
	}
	if want := []string{"resource-endpoints-v" + version}; !slices.Equal(got, want) {
		t.Errorf("PULUMI_HOME/plugins holds %v of this provider, want %v", got, want)
	}
}

// wantKubernetesPinned checks that every pulumi-kubernetes provider of the stack ran
// at the version the tests pin (the one installed, and the one the README names): the
// version input the engine records for it.
func (u *user) wantKubernetesPinned(t *testing.T) {
	t.Helper()
	raw, err := toolchain.Command(t.Context(), u.dir, u.env, toolchain.Asset(t, "TEST_ASSET_PULUMI"), "stack", "export")
	if err != nil {
		t.Fatalf("pulumi stack export: %v\n%s", err, raw)
	}
	var state struct {
		Deployment struct {
			Resources []struct {
				Type   string         `json:"type"`
				URN    string         `json:"urn"`
				Inputs map[string]any `json:"inputs"`
			} `json:"resources"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal([]byte(raw), &state); err != nil {
		t.Fatalf("pulumi stack export: %v", err)
	}
	want, found := pulumicli.KubernetesVersion(t), 0
	for _, r := range state.Deployment.Resources {
		if r.Type != "pulumi:providers:kubernetes" {
			continue
		}
		found++
		if got := r.Inputs["version"]; got != want {
			t.Errorf("the provider %s ran pulumi-kubernetes at version %v, want %s: the program must pin it", r.URN, got, want)
		}
	}
	if found == 0 {
		t.Errorf("the stack has no pulumi-kubernetes provider:\n%s", raw)
	}
}

// writeNewTypeScriptProject writes into dir the project `pulumi new typescript`
// makes, which needs its templates from the network: Pulumi.yaml with the nodejs
// runtime, package.json with @pulumi/pulumi, TypeScript and the Node types (at the
// pinned versions), and the template's tsconfig.json, which the TypeScript example
// keeps as it is. `pulumi new` installs the dependencies; here the README's
// `npm install` that follows does.
func writeNewTypeScriptProject(t *testing.T, dir string) {
	t.Helper()
	toolchain.WriteFile(t, filepath.Join(dir, "Pulumi.yaml"), "name: quickstart\nruntime: nodejs\ndescription: A minimal TypeScript Pulumi program\n")
	toolchain.WriteFile(t, filepath.Join(dir, "package.json"), fmt.Sprintf(`{
    "name": "quickstart",
    "main": "index.ts",
    "devDependencies": {
        "@types/node": %q,
        "typescript": %q
    },
    "dependencies": {
        "@pulumi/pulumi": %q
    }
}
`, toolchain.TypesNodeVersion, toolchain.TypeScriptVersion, toolchain.PulumiVersion))
	toolchain.CopyFile(t, filepath.Join(toolchain.RepoRoot(t), "examples", "kubernetes", "typescript", "tsconfig.json"), filepath.Join(dir, "tsconfig.json"))
}
