package registries

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1" //nolint:gosec // npm's dist.shasum is SHA-1 by definition; integrity carries SHA-512
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// npmRegistry serves one npm package: its packument (the document `npm install`
// reads for a name, listing every version with its tarball's URL and digests) and its
// tarball.
type npmRegistry struct {
	url       string
	name      string
	packument []byte
	tarball   []byte
	tarPath   string
}

// serveNPM starts a registry for the package in the npm tarball at path.
func serveNPM(t testing.TB, path string) *npmRegistry {
	t.Helper()
	data, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := packageJSON(data)
	if err != nil {
		t.Fatalf("npm tarball %s: %v", path, err)
	}
	var meta struct{ Name, Version string }
	if err := json.Unmarshal(manifest, &meta); err != nil || meta.Name == "" || meta.Version == "" {
		t.Fatalf("npm tarball %s: package.json names no package and version (%v)", path, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("npm registry: %v", err)
	}
	r := &npmRegistry{url: "http://" + l.Addr().String(), name: meta.Name, tarball: data}
	r.tarPath = "/" + meta.Name + "/-/" + filepath.Base(path)
	if r.packument, err = r.document(manifest, meta.Version); err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return r
}

// document is the packument of the one version: the package's package.json with
// dist.tarball, dist.shasum and dist.integrity added.
func (r *npmRegistry) document(manifest []byte, version string) ([]byte, error) {
	var v map[string]any
	if err := json.Unmarshal(manifest, &v); err != nil {
		return nil, err
	}
	sha := sha1.Sum(r.tarball) //nolint:gosec // see the import
	sum := sha512.Sum512(r.tarball)
	v["dist"] = map[string]string{
		"tarball":   r.url + r.tarPath,
		"shasum":    hex.EncodeToString(sha[:]),
		"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:]),
	}
	return json.Marshal(map[string]any{
		"name":      r.name,
		"dist-tags": map[string]string{"latest": version},
		"versions":  map[string]any{version: v},
	})
}

func (r *npmRegistry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	// npm asks for a scoped name with its slash escaped (/@scope%2fname).
	path, err := url.PathUnescape(req.URL.EscapedPath())
	switch {
	case err != nil || req.Method != http.MethodGet:
		http.NotFound(w, req)
	case path == "/"+r.name:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(r.packument)
	case path == r.tarPath:
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(r.tarball)
	default:
		http.NotFound(w, req)
	}
}

// packageJSON returns package/package.json of an npm tarball.
func packageJSON(tgz []byte) ([]byte, error) {
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no package/package.json")
		}
		if err != nil {
			return nil, err
		}
		if h.Name == "package/package.json" {
			return io.ReadAll(tr)
		}
	}
}
