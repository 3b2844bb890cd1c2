package releases

import (
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// PluginDownloadURL is the plugin source schema.json and every SDK name.
const PluginDownloadURL = "github://api.github.com/endpoints-provider/pulumi-endpoints"

// releasePrefix is where GitHub serves a release's assets: /<owner>/<repo>/releases/download/v<version>/.
const releasePrefix = "/endpoints-provider/pulumi-endpoints/releases/download/"

// Server serves the archives of a dist directory over HTTP on 127.0.0.1, under
// /endpoints-provider/pulumi-endpoints/releases/download/v<version>/<archive>, as
// GitHub serves release assets. Anything else, or an archive the directory lacks,
// is a 404.
type Server struct {
	// URL is the server's base URL, such as http://127.0.0.1:41234.
	URL string

	dir string

	mu       sync.Mutex
	requests []string
}

// Serve starts a release server for the archives in distDir, stopped when the
// test ends.
func Serve(t testing.TB, distDir string) *Server {
	t.Helper()
	s := &Server{dir: distDir}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("release server: %v", err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	s.URL = "http://" + l.Addr().String()
	return s
}

// Env returns the environment that makes the engine download this provider's
// plugin from the server: PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES mapping the
// pluginDownloadURL to the server's release directory of the wanted version
// (the engine fills in ${VERSION}).
func (s *Server) Env() []string {
	return []string{"PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES=" + s.Override()}
}

// Override is the PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES value of Env.
func (s *Server) Override() string {
	return "^" + regexp.QuoteMeta(PluginDownloadURL) + "$=" + s.URL + releasePrefix + "v${VERSION}"
}

// Requests returns the paths of the requests served so far, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.URL.Path)
	s.mu.Unlock()

	rest, ok := strings.CutPrefix(r.URL.Path, releasePrefix)
	tag, name, found := strings.Cut(rest, "/")
	if !ok || !found || !strings.HasPrefix(tag, "v") || name == "" || strings.Contains(name, "/") ||
		r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	// The archive must be of the tag's version, as a release holds only its own.
	if !strings.Contains(name, "-"+tag+"-") {
		http.NotFound(w, r)
		return
	}
	file := filepath.Join(s.dir, path.Base(name))
	if _, err := os.Stat(file); err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeFile(w, r, file)
}
