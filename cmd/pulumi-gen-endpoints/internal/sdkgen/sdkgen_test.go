package sdkgen

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	endpoints "github.com/endpoints-provider/pulumi-endpoints"
	"github.com/google/go-cmp/cmp"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

func testSpec(t *testing.T) schema.PackageSpec {
	t.Helper()
	var spec schema.PackageSpec
	if err := json.Unmarshal(endpoints.Schema(), &spec); err != nil {
		t.Fatal(err)
	}
	spec.Version = "1.2.3"
	return spec
}

// TestReserveGetNames shows why reserveGetNames exists and that it changes nothing
// but the names: without it the Go generator names the lookups Get...; with it
// they are Lookup..., and the two SDKs are otherwise identical, file for file.
func TestReserveGetNames(t *testing.T) {
	t.Parallel()
	spec := testSpec(t)

	plainPkg, err := bind(spec)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := gogen.GeneratePackage(tool, plainPkg, nil)
	if err != nil {
		t.Fatal(err)
	}
	renamed, err := genGo(spec)
	if err != nil {
		t.Fatal(err)
	}

	const (
		importFile = "endpoints/migration/v1alpha1/getImportDataFile.go"
		policyFile = "endpoints/accessgateway/v1/getOrganizationPartnerTenantProxyConfigIamPolicy.go"
	)
	for file, want := range map[string]map[string][]string{
		importFile: {
			"plain":   {"func GetImportDataFile(", "func GetImportDataFileOutput("},
			"renamed": {"func LookupImportDataFile(", "func LookupImportDataFileOutput(", "type LookupImportDataFileResultOutput struct"},
		},
		policyFile: {
			"plain":   {"func GetOrganizationPartnerTenantProxyConfigIamPolicy("},
			"renamed": {"func LookupOrganizationPartnerTenantProxyConfigIamPolicy(", "func LookupOrganizationPartnerTenantProxyConfigIamPolicyOutput("},
		},
	} {
		for _, w := range want["plain"] {
			if !bytes.Contains(plain[file], []byte(w)) {
				t.Errorf("without the reservation, %s lacks %q: has the Go generator changed its naming?", file, w)
			}
		}
		for _, w := range want["renamed"] {
			if !bytes.Contains(renamed[file], []byte(w)) {
				t.Errorf("with the reservation, %s lacks %q", file, w)
			}
		}
	}

	if diff := cmp.Diff(sortedKeys(plain), sortedKeys(renamed)); diff != "" {
		t.Fatalf("the reservation changes the set of files (-plain +renamed):\n%s", diff)
	}
	// Both sides are mapped: the schema's Go examples, in the doc comments of both,
	// already call the lookups by their Lookup names.
	lookup := regexp.MustCompile(`Lookup(ImportDataFile|OrganizationPartnerTenantProxyConfigIamPolicy)`)
	for name, data := range renamed {
		back := lookup.ReplaceAll(data, []byte("Get$1"))
		if !bytes.Equal(back, lookup.ReplaceAll(plain[name], []byte("Get$1"))) {
			t.Errorf("%s differs from the plain SDK by more than the Lookup names", name)
		}
	}
}

func TestLoadSpecVersion(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(path, endpoints.Schema(), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		version string
		ok      bool
	}{
		{"0.1.0", true},
		{"1.2.3-alpha.1+build.5", true},
		{"", false},
		{"v0.1.0", false},
		{"0.1", false},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			t.Parallel()
			spec, err := loadSpec(path, tt.version)
			if tt.ok != (err == nil) {
				t.Fatalf("loadSpec(%q) error = %v, want ok=%v", tt.version, err, tt.ok)
			}
			if tt.ok && spec.Version != tt.version {
				t.Errorf("spec.Version = %q, want %q", spec.Version, tt.version)
			}
		})
	}
}

func TestWriteTreeReplacesDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "go")
	if err := writeTree(dir, map[string][]byte{"old/stale.go": []byte("package old\n")}); err != nil {
		t.Fatal(err)
	}
	if err := writeTree(dir, map[string][]byte{"a/b.txt": []byte("b\n"), "c.txt": []byte("c\n")}); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a/b.txt", "c.txt"}, got); diff != "" {
		t.Errorf("files after the second write (-want +got):\n%s", diff)
	}
}

func TestGenerateNeedsEveryGenerator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no C# generator", Options{JavaGenerator: "pulumi-java-gen"}, "no C# generator"},
		{"no Java generator", Options{DotnetGenerator: "pulumi-gen-dotnet"}, "no Java generator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			opts.SchemaPath, opts.OutDir, opts.Version = "schema.json", t.TempDir(), "0.1.0"
			err := Generate(opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Generate(%+v) error = %v, want one saying %q", opts, err, tt.want)
			}
		})
	}
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
