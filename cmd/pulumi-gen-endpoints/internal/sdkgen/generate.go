package sdkgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// tool is the generator name written into the header of every generated file.
const tool = "pulumi-gen-endpoints"

// Options say what Generate reads and writes.
type Options struct {
	// SchemaPath is the package schema (schema.json).
	SchemaPath string
	// OutDir receives one subdirectory per language; each is replaced whole. Other
	// files there (sdk/go.mod and sdk/go.sum of the Go SDK module) are left alone.
	OutDir string
	// Version is the SDK version, a semantic version without a leading "v".
	Version string
	// DotnetGenerator is the pulumi-gen-dotnet binary built from tools/gen-dotnet.
	DotnetGenerator string
	// JavaGenerator is the pulumi-java-gen binary built from tools/pulumi-java.
	JavaGenerator string
}

// Generate writes every SDK of the schema at opts.SchemaPath into opts.OutDir.
func Generate(opts Options) error {
	if opts.OutDir == "" {
		return errors.New("no output directory given")
	}
	if opts.DotnetGenerator == "" {
		return errors.New("no C# generator given: build tools/gen-dotnet (make gen does) and pass its binary with -dotnet-gen")
	}
	if opts.JavaGenerator == "" {
		return errors.New("no Java generator given: build tools/pulumi-java (make gen does) and pass its pulumi-java-gen with -java-gen")
	}
	spec, err := loadSpec(opts.SchemaPath, opts.Version)
	if err != nil {
		return err
	}
	steps := []struct {
		lang string
		gen  func(schema.PackageSpec) (map[string][]byte, error)
	}{
		{"go", genGo},
		{"nodejs", genNodejs},
		{"python", genPython},
		{"dotnet", func(s schema.PackageSpec) (map[string][]byte, error) { return genDotnet(opts.DotnetGenerator, s) }},
		{"java", func(s schema.PackageSpec) (map[string][]byte, error) { return genJava(opts.JavaGenerator, s) }},
	}
	// Generate everything before writing anything, so that a failure leaves sdk/ as it was.
	trees := make([]map[string][]byte, len(steps))
	for i, step := range steps {
		files, err := step.gen(spec)
		if err != nil {
			return fmt.Errorf("generate the %s SDK: %w", step.lang, err)
		}
		if err := addReadme(step.lang, spec, files); err != nil {
			return fmt.Errorf("generate the %s SDK: %w", step.lang, err)
		}
		trees[i] = files
	}
	for i, step := range steps {
		if err := writeTree(filepath.Join(opts.OutDir, step.lang), trees[i]); err != nil {
			return fmt.Errorf("write the %s SDK: %w", step.lang, err)
		}
	}
	return nil
}

// loadSpec reads the schema and sets its version.
func loadSpec(path, version string) (schema.PackageSpec, error) {
	var spec schema.PackageSpec
	if version == "" {
		return spec, errors.New("no SDK version given (-version, such as 0.1.0)")
	}
	if _, err := semver.Parse(version); err != nil {
		return spec, fmt.Errorf("SDK version %q is not a semantic version such as 0.1.0: %w", version, err)
	}
	data, err := os.ReadFile(path) //nolint:gosec // the schema path is the caller's choice
	if err != nil {
		return spec, fmt.Errorf("read the schema: %w", err)
	}
	if err := json.Unmarshal(data, &spec); err != nil {
		return spec, fmt.Errorf("decode the schema %s: %w", path, err)
	}
	spec.Version = version
	return spec, nil
}

// bind binds a private copy of spec: the generators record language data on the
// bound package, so no two languages share one.
func bind(spec schema.PackageSpec) (*schema.Package, error) {
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		return nil, fmt.Errorf("bind the schema: %w", err)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("bind the schema: %w", diags)
	}
	return pkg, nil
}

// writeTree replaces dir with exactly the given files (paths use forward slashes).
func writeTree(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("clear %s: %w", dir, err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil { //nolint:gosec // SDK sources are meant to be world-readable
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return nil
}
