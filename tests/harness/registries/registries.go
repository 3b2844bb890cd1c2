// Package registries serves a directory of release artifacts (what `make dist` writes)
// as each package ecosystem's registry serves the published release, on 127.0.0.1,
// so that a user's own commands (`npm install`, `pip install -r requirements.txt`,
// `go mod tidy`, `mvn`, `pulumi up`) resolve the declared versions as they would
// against the real registries, everything else coming from the public ones:
//
//   - npm: a registry server for the scope @endpoints-provider (the packument of
//     @endpoints-provider/endpoints and its tarball), named in the user's .npmrc;
//   - pip: a --find-links directory of the wheel and sdist (PIP_FIND_LINKS), PyPI for
//     the rest;
//   - Go: the module proxy directory of the SDK module (DIST/goproxy) first in
//     GOPROXY, the checksum database told not to know it (GONOSUMDB);
//   - Maven: the SDK's jar and pom installed into the Maven repository of the tool
//     cache, where Maven keeps every download;
//   - the plugin: its archives served as GitHub serves release assets, the engine
//     pointed there by PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES.
package registries

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/releases"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// GoSDKModule is the Go SDK's module path, released by the tags sdk/vX.Y.Z.
const GoSDKModule = "github.com/endpoints-provider/pulumi-endpoints/sdk"

// Registries are the local registries of one dist directory, stopped when the test
// that started them ends.
type Registries struct {
	// Version is the release version the artifacts are stamped with.
	Version string
	// Plugin serves the plugin archives; its Requests show what the engine fetched.
	Plugin *releases.Server

	dist      string
	npm       *npmRegistry
	findLinks string
}

// Start serves the artifacts of version in dist. It fails the test when one is
// missing.
func Start(t testing.TB, dist, version string) *Registries {
	t.Helper()
	r := &Registries{Version: version, Plugin: releases.Serve(t, dist), dist: dist}
	r.npm = serveNPM(t, r.artifact(t, "endpoints-provider-endpoints-"+version+".tgz"))
	r.findLinks = t.TempDir()
	for _, pattern := range []string{"pulumi_endpoints-*.whl", "pulumi_endpoints-*.tar.gz"} {
		matches, err := filepath.Glob(filepath.Join(dist, pattern))
		if err != nil || len(matches) != 1 {
			t.Fatalf("%s: %d files match %s (%v), want the Python package's one (run `make examples-dist`)", dist, len(matches), pattern, err)
		}
		toolchain.CopyFile(t, matches[0], filepath.Join(r.findLinks, filepath.Base(matches[0])))
	}
	r.artifact(t, filepath.Join("goproxy", strings.ToLower(GoSDKModule), "@v", "v"+version+".zip"))
	return r
}

// artifact returns the path of name in the dist directory, failing the test when it
// is missing.
func (r *Registries) artifact(t testing.TB, name string) string {
	t.Helper()
	path := filepath.Join(r.dist, name)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("release artifact %v (run `make examples-dist`)", err)
	}
	return path
}

// UserEnv returns the environment of a user whose home directory is home (empty, the
// test's own) and whose package managers reach these registries: home gets the .npmrc
// that names the npm registry of the scope. npm's, pip's and Go's downloads are kept
// in the shared caches; Go's module cache is the test's own (a shared one would keep
// an earlier build of the SDK module at the same version), with the shared one's
// downloads as a proxy in front of the network.
func (r *Registries) UserEnv(t testing.TB, home string) []string {
	t.Helper()
	toolchain.WriteFile(t, filepath.Join(home, ".npmrc"), "@endpoints-provider:registry="+r.npm.url+"/\n")
	goCache := strings.TrimSpace(toolchain.Run(t, home, nil, "go", "env", "GOCACHE"))
	env := []string{
		"HOME=" + home,
		"GOPROXY=" + strings.Join(append([]string{FileURL(filepath.Join(r.dist, "goproxy"))}, SharedModuleDownloads(t)...), ","),
		"GONOSUMDB=" + GoSDKModule,
		"GOMODCACHE=" + t.TempDir(),
		"GOCACHE=" + goCache,
		// -modcacherw: the test's module cache can be removed with its directory;
		// -trimpath: builds are cached by module, not by that directory, so a
		// second run reuses the compiled SDK and pulumi packages.
		"GOFLAGS=-modcacherw -trimpath",
		"GOWORK=off",
		"GOTOOLCHAIN=local",
		"PIP_FIND_LINKS=" + r.findLinks,
		"MAVEN_OPTS=-Dmaven.repo.local=" + MavenRepo(t) + " -Djansi.noreset=true",
	}
	env = append(env, toolchain.NodeEnv(t)...)
	env = append(env, toolchain.PythonEnv(t)...)
	return append(env, r.Plugin.Env()...)
}

// mavenInstalls keeps one install of the Java SDK per jar for the test binary.
var mavenInstalls sync.Map // jar path -> *sync.Once

// InstallMaven installs the Java SDK's jar and pom into the Maven repository of the
// tool cache, as `mvn install` of the release would, once per test binary: a Maven
// program then resolves com.endpointsprovider:endpoints at the release version from
// there, and everything else from Maven Central into the same repository.
func (r *Registries) InstallMaven(t testing.TB) {
	t.Helper()
	jar := r.artifact(t, "endpoints-"+r.Version+".jar")
	pom := r.artifact(t, "endpoints-"+r.Version+".pom")
	once, _ := mavenInstalls.LoadOrStore(jar, new(sync.Once))
	var out string
	var err error
	once.(*sync.Once).Do(func() {
		out, err = toolchain.Command(t.Context(), t.TempDir(),
			[]string{"MAVEN_OPTS=-Dmaven.repo.local=" + MavenRepo(t) + " -Djansi.noreset=true"},
			"mvn", "-B", "-q", "org.apache.maven.plugins:maven-install-plugin:3.1.3:install-file",
			"-Dfile="+jar, "-DpomFile="+pom)
	})
	if err != nil {
		t.Fatalf("installing %s into the Maven repository: %v\n%s", jar, err, out)
	}
}

// MavenRepo is the Maven repository of the tool cache (TEST_ASSET_MAVEN_REPO).
func MavenRepo(t testing.TB) string {
	t.Helper()
	return toolchain.Asset(t, "TEST_ASSET_MAVEN_REPO")
}

// SharedModuleDownloads returns the GOPROXY entries after the SDK's: the shared module
// cache's downloads (a file:// proxy), when there is one, then the public proxy.
func SharedModuleDownloads(t testing.TB) []string {
	t.Helper()
	entries := []string{"https://proxy.golang.org"}
	out := toolchain.Run(t, t.TempDir(), nil, "go", "env", "GOMODCACHE")
	downloads := filepath.Join(strings.TrimSpace(out), "cache", "download")
	if info, err := os.Stat(downloads); err == nil && info.IsDir() {
		entries = append([]string{FileURL(downloads)}, entries...)
	}
	return entries
}

// FileURL is the file:// URL of a directory.
func FileURL(dir string) string { return "file://" + filepath.ToSlash(dir) }
