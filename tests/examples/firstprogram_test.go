package examples

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// firstProgramObjects are the objects of README.md's first program, as liveObjects
// describes them: the slice of Service web, the Endpoints web-legacy and db-legacy,
// and the slices the mirroring controller made of them.
var firstProgramObjects = map[string]string{
	"EndpointSlice web":         "10.0.0.10,10.0.0.11 notReady - http:8080",
	"Endpoints web-legacy":      "10.0.1.10 notReady - http:8080",
	"Endpoints db-legacy":       "10.0.2.5 notReady - postgres:5432",
	"mirrored slice web-legacy": "10.0.1.10 notReady - http:8080",
	"mirrored slice db-legacy":  "10.0.2.5 notReady - postgres:5432",
}

// firstProgramServices are the sorted Services README.md's kubectl block creates,
// which `pulumi destroy` leaves.
var firstProgramServices = []string{"db-legacy", "web", "web-legacy"}

// TestReadmeFirstProgram follows README.md's "A first program" as a user does, in
// each of its languages, each in its own namespace, home directory, PULUMI_HOME and
// backend: its kubectl block, run as written; the program in an empty directory
// (TypeScript: the project `pulumi new typescript` makes, then the README's
// `npm install`); `pulumi stack init dev` and `pulumi up`, which download the plugin;
// then it checks the objects, that refresh and preview find nothing to change, and
// that `pulumi destroy` leaves only the Services.
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
			u.bash(t, "the README's npm install", "npm install @endpoints-provider/endpoints\n")
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
			u.bash(t, "the README's kubectl block", p.kubectl)
			tc.write(t, u)
			u.bash(t, "stack init and up", "pulumi stack init dev\npulumi up --yes\n")
			u.wantPluginDownloaded(t)
			wantObjects(t, cp, ns, firstProgramObjects)
			u.bash(t, "refresh and preview", refreshAndPreview)
			u.bash(t, "destroy", "pulumi destroy --yes\n")
			wantNothingLeft(t, cp, ns, firstProgramServices...)
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
