package sdk_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// sdkModuleFiles are kept by `go mod tidy` in sdk/, not written by the generator
// (TestGoSDK checks that they are tidy).
var sdkModuleFiles = map[string]bool{"go.mod": true, "go.sum": true}

// buildArtifacts are directory names that building an SDK in place may leave
// behind; they are not part of the generated tree.
var buildArtifacts = map[string]bool{"node_modules": true, "__pycache__": true, ".mypy_cache": true}

// TestRegenerationIsClean builds the generator (and the pinned C# and Java
// generators of tools/gen-dotnet and tools/pulumi-java) as `make gen` does, regenerates every SDK into a temporary
// directory with the VERSION file's version, and fails listing every file of sdk/ that
// differs, is missing, or would no longer be generated.
func TestRegenerationIsClean(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	bin := t.TempDir()
	gen := filepath.Join(bin, "pulumi-gen-endpoints")
	dotnetGen := filepath.Join(bin, "pulumi-gen-dotnet")
	run(t, root, nil, "go", "build", "-o", gen, "./cmd/pulumi-gen-endpoints")
	run(t, filepath.Join(root, "tools", "gen-dotnet"), nil, "go", "build", "-o", dotnetGen, ".")
	javaGen := filepath.Join(bin, "pulumi-java-gen")
	run(t, filepath.Join(root, "tools", "pulumi-java"), nil, "go", "build", "-o", javaGen, "github.com/pulumi/pulumi-java/pkg/cmd/pulumi-java-gen")

	out := filepath.Join(t.TempDir(), "sdk")
	run(t, root, nil, gen, "-schema", "schema.json", "-out", out, "-version", sdkVersion(t), "-dotnet-gen", dotnetGen, "-java-gen", javaGen)

	want := readTree(t, out)
	got := readTree(t, sdkDir(t))
	if len(want) < 100 {
		t.Fatalf("the generator wrote only %d files into %s", len(want), out)
	}
	var problems []string
	for name, data := range want {
		have, ok := got[name]
		switch {
		case !ok:
			problems = append(problems, "missing:  sdk/"+name)
		case !bytes.Equal(have, data):
			problems = append(problems, "differs:  sdk/"+name+firstDifference(have, data))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok && !sdkModuleFiles[name] {
			problems = append(problems, "stale:    sdk/"+name+" (no longer generated)")
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		t.Errorf("regenerating the SDKs changes %d files; run `make gen` and commit the result:\n%s",
			len(problems), strings.Join(problems, "\n"))
	}
}

// readTree returns the files under dir by slash-separated relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if buildArtifacts[d.Name()] || strings.HasSuffix(d.Name(), ".egg-info") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	return files
}

// firstDifference describes the first line where have and want differ.
func firstDifference(have, want []byte) string {
	h, w := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(h) || i < len(w); i++ {
		var hl, wl string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if hl != wl {
			return fmt.Sprintf(" (line %d: committed %.80q, generated %.80q)", i+1, hl, wl)
		}
	}
	return ""
}
