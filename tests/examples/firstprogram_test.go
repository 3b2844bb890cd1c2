package examples

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
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

// TestReadmeFirstProgram follows README.md's "A first program" as a user does, in
// each of its languages, each in its own namespace, home directory, PULUMI_HOME and
// backend: the program in an empty directory (TypeScript: the project `pulumi new
// typescript` makes, then the README's ```sh block, which installs both SDKs);
// `pulumi stack init dev` and `pulumi up`, which download this provider's plugin
// (pulumi-kubernetes's, which cannot be downloaded here, is installed first, as
// `pulumi up` would); then it checks the objects, that refresh and preview find
// nothing to change, and that `pulumi destroy` leaves nothing, the Services included.
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
			u.installKubernetesPlugin(t)
			tc.write(t, u)
			u.bash(t, "stack init and up", "pulumi stack init dev\npulumi up --yes\n")
			u.wantPluginDownloaded(t)
			wantFirstProgramObjects(t, cp, ns, u)
			u.bash(t, "refresh and preview", refreshAndPreview)
			u.bash(t, "destroy", "pulumi destroy --yes\n")
			wantNothingLeft(t, cp, ns)
		})
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
