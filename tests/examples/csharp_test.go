package examples

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// TestCSharpExamples parses the program of every C# example with tree-sitter-c-sharp,
// the check the C# SDK gets: there is no .NET SDK here to restore, build or run them
// (their READMEs say the package is not published). TestExamplesDeclareReleasedVersion
// checks their PackageReference. The program with a brace dropped must fail the check.
func TestCSharpExamples(t *testing.T) {
	t.Parallel()
	parser := toolchain.CSharpParser(t)
	root := filepath.Join(toolchain.RepoRoot(t), "examples")
	tmp := t.TempDir()
	checked := 0
	for _, dir := range exampleDirs(t) {
		if filepath.Base(dir) != "csharp" {
			continue
		}
		program := filepath.Join(root, dir, "Program.cs")
		toolchain.Run(t, tmp, nil, parser[0], parser[1], program)
		checked++

		broken := filepath.Join(tmp, strings.ReplaceAll(dir, string(os.PathSeparator), "-")+"-broken.cs")
		toolchain.WriteFile(t, broken, strings.Replace(toolchain.ReadFile(t, program), "});", ")", 1))
		if out, err := toolchain.Command(t.Context(), tmp, nil, parser[0], parser[1], broken); err == nil {
			t.Errorf("the C# parser accepted %s with a brace dropped:\n%s", program, out)
		}
	}
	if checked == 0 {
		t.Error("no examples/<group>/csharp to check")
	}
}
