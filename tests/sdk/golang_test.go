package sdk_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// TestGoSDK checks the Go SDK as its own module: `go vet ./...` inside sdk/ is
// clean, and its go.mod and go.sum are tidy (what `go get` users resolve).
func TestGoSDK(t *testing.T) {
	t.Parallel()
	dir := sdkDir(t)
	modFile := toolchain.ReadFile(t, filepath.Join(dir, "go.mod"))
	for _, want := range []string{
		"module github.com/endpoints-provider/pulumi-endpoints/sdk\n",
		"github.com/pulumi/pulumi/sdk/v3 v3.256.0\n",
	} {
		if !strings.Contains(modFile, want) {
			t.Errorf("sdk/go.mod lacks %q", want)
		}
	}
	run(t, dir, nil, "go", "vet", "-trimpath", "./...") // -trimpath: shares the build cache with TestGoProgram
	if out, err := command(t.Context(), dir, nil, "go", "mod", "tidy", "-diff"); err != nil {
		t.Errorf("sdk/go.mod or sdk/go.sum is not tidy; run `cd sdk && go mod tidy`:\n%s", out)
	}
}

// TestGoProgram compiles and vets, inside a copy of the SDK module, a program that
// uses every token with the Go names of the interface (LookupImportDataFile,
// LookupOrganizationPartnerTenantProxyConfigIamPolicy and their Output forms, with
// their Lookup... types), and the Go README's example.
func TestGoProgram(t *testing.T) {
	t.Parallel()
	src := sdkDir(t)
	mod := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum"} {
		toolchain.WriteFile(t, filepath.Join(mod, f), toolchain.ReadFile(t, filepath.Join(src, f)))
	}
	copyDir(t, filepath.Join(src, "go"), filepath.Join(mod, "go"))
	toolchain.WriteFile(t, filepath.Join(mod, "program", "main.go"), toolchain.ReadFile(t, filepath.Join("testdata", "go", "program", "main.go")))
	toolchain.WriteFile(t, filepath.Join(mod, "readme", "main.go"),
		readmeExample(t, filepath.Join(src, "go", "endpoints", "README.md"), "go"))
	// -trimpath keeps the temporary directory out of the build cache keys, so a
	// rerun compiles nothing that has not changed.
	run(t, mod, nil, "go", "vet", "-trimpath", "./program", "./readme")
}

// TestGoLookupNames parses the Go SDK and checks the declarations of the two
// lookups: the Lookup... names of the interface exist, and no Get... name is left.
func TestGoLookupNames(t *testing.T) {
	t.Parallel()
	base := filepath.Join(sdkDir(t), "go", "endpoints")
	tests := []struct {
		file   string
		prefix string
		want   []string
	}{
		{
			file:   "migration/v1alpha1/getImportDataFile.go",
			prefix: "LookupImportDataFile",
			want: []string{
				"func LookupImportDataFile", "func LookupImportDataFileOutput",
				"type LookupImportDataFileArgs", "type LookupImportDataFileOutputArgs",
				"type LookupImportDataFileResult", "type LookupImportDataFileResultOutput",
			},
		},
		{
			file:   "accessgateway/v1/getOrganizationPartnerTenantProxyConfigIamPolicy.go",
			prefix: "LookupOrganizationPartnerTenantProxyConfigIamPolicy",
			want: []string{
				"func LookupOrganizationPartnerTenantProxyConfigIamPolicy",
				"func LookupOrganizationPartnerTenantProxyConfigIamPolicyOutput",
				"type LookupOrganizationPartnerTenantProxyConfigIamPolicyArgs",
				"type LookupOrganizationPartnerTenantProxyConfigIamPolicyOutputArgs",
				"type LookupOrganizationPartnerTenantProxyConfigIamPolicyResult",
				"type LookupOrganizationPartnerTenantProxyConfigIamPolicyResultOutput",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			t.Parallel()
			decls := topLevelDecls(t, filepath.Join(base, filepath.FromSlash(tt.file)))
			var got []string
			for _, d := range decls {
				if strings.HasPrefix(strings.Fields(d)[1], tt.prefix) {
					got = append(got, d)
				}
			}
			sort.Strings(got)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("%s declares\n%s\nwant\n%s", tt.file, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}

	// No Get... form of the lookups anywhere: they are Lookup... only.
	err := filepath.WalkDir(base, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		for _, decl := range topLevelDecls(t, path) {
			name := strings.Fields(decl)[1]
			for _, tt := range tests {
				if strings.HasPrefix(name, "Get"+strings.TrimPrefix(tt.prefix, "Lookup")) {
					t.Errorf("%s declares %s; the Go lookups are named Lookup...", path, decl)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// topLevelDecls returns "func Name" and "type Name" for the top-level functions and
// types of a Go file (methods excluded).
func topLevelDecls(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var decls []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				decls = append(decls, "func "+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					decls = append(decls, "type "+ts.Name.Name)
				}
			}
		}
	}
	return decls
}
