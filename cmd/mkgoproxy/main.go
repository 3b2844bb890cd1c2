// Command mkgoproxy writes a module proxy directory, in the layout a file:// GOPROXY
// serves, that holds one module at one version built from a directory of its sources:
//
//	mkgoproxy -dir sdk -version v0.6.0 -time 1764028800 -out dist/goproxy
//
// writes dist/goproxy/<module path>/@v/{list,v0.6.0.info,v0.6.0.mod,v0.6.0.zip},
// the files the module proxy serves for the tag of that version, so that
// GOPROXY=file://$PWD/dist/goproxy,https://proxy.golang.org resolves the module as a
// user's `go get` resolves the published one. The module path is read from the
// directory's go.mod. The zip is the one `go mod download` would verify (the
// module zip format of golang.org/x/mod/zip), and the same sources, version and time
// write the same bytes.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

func main() {
	var opts options
	flag.StringVar(&opts.dir, "dir", "", "directory of the module's sources, with its go.mod (required)")
	flag.StringVar(&opts.version, "version", "", "module version, such as v0.6.0 (required)")
	flag.Int64Var(&opts.time, "time", 0, "the version's time in the .info file, in seconds since 1970 (such as SOURCE_DATE_EPOCH)")
	flag.StringVar(&opts.out, "out", "", "module proxy directory to write into (required)")
	flag.Parse()
	if err := run(opts); err != nil {
		fmt.Fprintln(os.Stderr, "mkgoproxy:", err)
		os.Exit(1)
	}
}

type options struct {
	dir, version, out string
	time              int64
}

// run writes the version's files and adds the version to the module's list.
func run(opts options) error {
	if opts.dir == "" || opts.out == "" || opts.version == "" {
		return errors.New("-dir, -version and -out are required")
	}
	mod, err := os.ReadFile(filepath.Join(opts.dir, "go.mod"))
	if err != nil {
		return fmt.Errorf("read the module's go.mod: %w", err)
	}
	path := modfile.ModulePath(mod)
	if path == "" {
		return fmt.Errorf("%s has no module line", filepath.Join(opts.dir, "go.mod"))
	}
	mv := module.Version{Path: path, Version: opts.version}
	if err := module.Check(path, opts.version); err != nil {
		return fmt.Errorf("module %s at %s: %w", path, opts.version, err)
	}
	escaped, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	base := filepath.Join(opts.out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(base, 0o750); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{opts.version, time.Unix(opts.time, 0).UTC()})
	if err != nil {
		return err
	}
	if err := writeZip(filepath.Join(base, opts.version+".zip"), mv, opts.dir); err != nil {
		return err
	}
	for name, data := range map[string][]byte{opts.version + ".info": info, opts.version + ".mod": mod} {
		if err := os.WriteFile(filepath.Join(base, name), data, 0o644); err != nil { //nolint:gosec // a proxy's files are meant to be world-readable
			return err
		}
	}
	return addToList(filepath.Join(base, "list"), opts.version)
}

// writeZip writes the module zip of the sources in dir.
func writeZip(path string, mv module.Version, dir string) error {
	f, err := os.Create(filepath.Clean(path))
	if err != nil {
		return err
	}
	if err := modzip.CreateFromDir(f, mv, dir); err != nil {
		_ = f.Close()
		return fmt.Errorf("module zip of %s at %s from %s: %w", mv.Path, mv.Version, dir, err)
	}
	return f.Close()
}

// addToList adds version to the list file of the module's versions, keeping the
// others it holds.
func addToList(path, version string) error {
	data, err := os.ReadFile(filepath.Clean(path))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	versions := strings.Fields(string(data))
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	semver.Sort(versions)
	return os.WriteFile(path, []byte(strings.Join(versions, "\n")+"\n"), 0o644) //nolint:gosec // a proxy's files are meant to be world-readable
}
