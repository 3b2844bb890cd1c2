package sdkgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// genDotnet runs the pinned C# generator (tools/gen-dotnet) on the versioned
// schema and returns the files it wrote.
func genDotnet(generator string, spec schema.PackageSpec) (map[string][]byte, error) {
	return runGenerator(spec, generator, "-schema", schemaFile, "-out", outDir)
}

// The files runGenerator's generators read and write, relative to the directory
// they run in.
const (
	schemaFile = "schema.json"
	outDir     = "out"
)

// runGenerator writes the versioned schema into a new temporary directory as
// schemaFile, runs generator with args there, and returns the files it wrote
// under outDir.
func runGenerator(spec schema.PackageSpec, generator string, args ...string) (map[string][]byte, error) {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("encode the versioned schema: %w", err)
	}
	tmp, err := os.MkdirTemp("", "pulumi-gen-endpoints-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	if err := os.WriteFile(filepath.Join(tmp, schemaFile), data, 0o600); err != nil {
		return nil, err
	}
	var output bytes.Buffer
	cmd := exec.Command(generator, args...) //nolint:gosec // the generator path is the caller's choice
	cmd.Dir = tmp
	cmd.Stdout = &output
	cmd.Stderr = &output
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("run %s: %w\n%s", generator, err, output.Bytes())
	}
	return readTree(filepath.Join(tmp, outDir))
}

// readTree returns the files under dir keyed by their slash-separated relative paths.
func readTree(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path) //nolint:gosec // walking our own temporary directory
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the generated SDK: %w", err)
	}
	return files, nil
}
