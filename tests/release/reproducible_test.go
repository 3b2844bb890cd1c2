package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// TestArchivesAreReproducible builds the release archives a second time, from a
// copy of the sources at another path, and compares them byte for byte with the
// ones `make dist` built; the second build of this platform's plugin recompiles
// every package (-a), so the comparison is of two builds, not of one build and
// the Go build cache.
func TestArchivesAreReproducible(t *testing.T) {
	t.Parallel()
	root := toolchain.RepoRoot(t)
	dist := asset(t, "TEST_ASSET_DIST")
	v := version(t)
	epoch := strings.TrimSpace(toolchain.Run(t, root, nil, "git", "log", "-1", "--format=%ct"))

	copyDir := filepath.Join(t.TempDir(), "elsewhere", "pulumi-endpoints")
	files := strings.Fields(toolchain.Run(t, root, nil, "git", "ls-files", "--cached", "--others", "--exclude-standard"))
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(root, f)); errors.Is(err, os.ErrNotExist) {
			continue // deleted in the working tree
		}
		toolchain.CopyFile(t, filepath.Join(root, f), filepath.Join(copyDir, f))
	}
	makeArgs := []string{"--no-print-directory", "VERSION=" + v, "SOURCE_DATE_EPOCH=" + epoch}
	start := time.Now()
	toolchain.Run(t, copyDir, nil, "make", append(makeArgs, "dist-plugins")...)
	t.Logf("second build of every platform: %s", time.Since(start).Round(time.Second))
	// This platform's plugin once more, every package recompiled.
	own := filepath.Join("dist", archiveName(v, thisPlatform))
	if err := os.Remove(filepath.Join(copyDir, own)); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	toolchain.Run(t, copyDir, []string{"GOFLAGS=-a"}, "make", append(makeArgs, own)...)
	t.Logf("rebuild of %s with every package recompiled: %s", thisPlatform, time.Since(start).Round(time.Second))

	names := []string{"checksums.txt"}
	for _, p := range platforms {
		names = append(names, archiveName(v, p))
	}
	for _, name := range names {
		first, err := os.ReadFile(filepath.Join(dist, name)) //nolint:gosec // the test's own artifacts
		if err != nil {
			t.Fatal(err)
		}
		second, err := os.ReadFile(filepath.Join(copyDir, "dist", name)) //nolint:gosec // the test's own artifacts
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second) {
			t.Errorf("%s differs between two builds of the same sources (%d and %d bytes)", name, len(first), len(second))
		}
	}
}

// TestArchiveContents checks each archive as `pulumi plugin install` unpacks it: the
// plugin binary (.exe on windows, executable) with LICENSE and README.md at the
// root, fixed times and owners; checksums.txt lists every archive's SHA-256; and
// this platform's binary reports the release version.
func TestArchiveContents(t *testing.T) {
	t.Parallel()
	dist := asset(t, "TEST_ASSET_DIST")
	v := version(t)
	root := toolchain.RepoRoot(t)
	epoch, err := strconv.ParseInt(strings.TrimSpace(toolchain.Run(t, root, nil, "git", "log", "-1", "--format=%ct")), 10, 64)
	if err != nil {
		t.Fatal(err)
	}

	var wantSums []string
	for _, p := range platforms {
		name := archiveName(v, p)
		data, err := os.ReadFile(filepath.Join(dist, name)) //nolint:gosec // the test's own artifacts
		if err != nil {
			t.Fatalf("release archive: %v", err)
		}
		sum := sha256.Sum256(data)
		wantSums = append(wantSums, hex.EncodeToString(sum[:])+"  "+name)

		bin := "pulumi-resource-endpoints"
		if strings.HasPrefix(p, "windows-") {
			bin += ".exe"
		}
		entries, err := readArchive(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name)
			if e.Uid != 0 || e.Gid != 0 || e.Uname != "" || e.Gname != "" {
				t.Errorf("%s: %s is owned by %d/%d (%q/%q), want 0/0", name, e.Name, e.Uid, e.Gid, e.Uname, e.Gname)
			}
			if e.ModTime.Unix() != epoch {
				t.Errorf("%s: %s has time %s, want the last commit's %s", name, e.Name, e.ModTime.UTC(), time.Unix(epoch, 0).UTC())
			}
			wantMode := int64(0o644)
			if e.Name == bin {
				wantMode = 0o755
			}
			if e.Mode&0o777 != wantMode {
				t.Errorf("%s: %s has mode %o, want %o", name, e.Name, e.Mode&0o777, wantMode)
			}
		}
		if want := []string{"LICENSE", "README.md", bin}; !slices.Equal(got, want) {
			t.Errorf("%s holds %q, want %q in that order", name, got, want)
		}
		if p == thisPlatform {
			checkVersion(t, entries, bin, v)
		}
	}
	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt")) //nolint:gosec // the test's own artifact
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(wantSums, func(a, b string) int { return strings.Compare(a[66:], b[66:]) })
	if got, want := string(sums), strings.Join(wantSums, "\n")+"\n"; got != want {
		t.Errorf("checksums.txt is\n%s\nwant\n%s", got, want)
	}
}

type entry struct {
	*tar.Header
	data []byte
}

func readArchive(data []byte) ([]entry, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		return nil, fmt.Errorf("the gzip header records name %q and time %s", zr.Name, zr.ModTime)
	}
	var entries []entry
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return entries, nil
		}
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{Header: h, data: body})
	}
}

// checkVersion runs the archive's binary with --version.
func checkVersion(t *testing.T, entries []entry, bin, version string) {
	t.Helper()
	for _, e := range entries {
		if e.Name != bin {
			continue
		}
		path := filepath.Join(t.TempDir(), bin)
		if err := os.WriteFile(path, e.data, 0o700); err != nil { //nolint:gosec // an executable for the test to run
			t.Fatal(err)
		}
		out, err := exec.CommandContext(t.Context(), path, "--version").Output()
		if err != nil {
			t.Fatalf("%s --version: %v", bin, err)
		}
		if got := strings.TrimSpace(string(out)); got != version {
			t.Errorf("the released plugin says version %q, want %q", got, version)
		}
	}
}
