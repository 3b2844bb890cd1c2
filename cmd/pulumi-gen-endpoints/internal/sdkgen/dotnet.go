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
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("encode the versioned schema: %w", err)
	}
	tmp, err := os.MkdirTemp("", "pulumi-gen-endpoints-dotnet-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	schemaPath := filepath.Join(tmp, "schema.json")
	if err := os.WriteFile(schemaPath, data, 0o600); err != nil {
		return nil, err
	}
	outDir := filepath.Join(tmp, "out")
	var stderr bytes.Buffer
	cmd := exec.Command(generator, "-schema", schemaPath, "-out", outDir) //nolint:gosec // the generator path is the caller's choice
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("run %s: %w\n%s", generator, err, stderr.Bytes())
	}
	return readTree(outDir)
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
