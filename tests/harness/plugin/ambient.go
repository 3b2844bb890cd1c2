package plugin

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// The engine writes a schema cache for an ambient plugin (one found on PATH) next to
// the directory the plugin is in: with bin/ on PATH that is the repository root.
// Tests therefore put a copy of the plugin in a directory of their own.
var ambient struct {
	once sync.Once
	dir  string
	err  error
}

// AmbientDir returns a directory to put on PATH that holds a copy of the plugin at
// path, shared by the process: ambient/pulumi-resource-endpoints inside a temporary
// directory that RemoveAmbientDir removes.
func AmbientDir(path string) (string, error) {
	ambient.once.Do(func() {
		root, err := os.MkdirTemp("", "endpoints-plugin-")
		if err != nil {
			ambient.err = err
			return
		}
		dir := filepath.Join(root, "ambient")
		if err := os.Mkdir(dir, 0o700); err != nil {
			ambient.err = err
			return
		}
		ambient.dir, ambient.err = dir, copyExecutable(path, filepath.Join(dir, filepath.Base(path)))
	})
	return ambient.dir, ambient.err
}

// RemoveAmbientDir removes what AmbientDir made; call it from TestMain.
func RemoveAmbientDir() error {
	if ambient.dir == "" {
		return nil
	}
	return os.RemoveAll(filepath.Dir(ambient.dir))
}

func copyExecutable(src, dst string) error {
	in, err := os.Open(src) //nolint:gosec // the plugin binary the tests were given
	if err != nil {
		return fmt.Errorf("copying the plugin: %w", err)
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o700) //nolint:gosec // our own temporary directory
	if err != nil {
		return fmt.Errorf("copying the plugin: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return fmt.Errorf("copying the plugin: %w", err)
	}
	return out.Close()
}
