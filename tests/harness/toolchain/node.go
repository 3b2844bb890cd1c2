package toolchain

import (
	"path/filepath"
	"testing"
)

// NodeEnv is the environment for npm: the shared cache, offline first, quiet.
func NodeEnv(t testing.TB) []string {
	t.Helper()
	return []string{
		"npm_config_cache=" + CacheDir(t, "npm"),
		"npm_config_prefer_offline=true",
		"npm_config_audit=false",
		"npm_config_fund=false",
		"npm_config_update_notifier=false",
		"npm_config_loglevel=error",
	}
}

// NodePins are the packages a program installs next to the SDK, at pinned versions.
func NodePins() []string {
	return []string{"@pulumi/pulumi@" + PulumiVersion, "typescript@" + TypeScriptVersion, "@types/node@" + TypesNodeVersion}
}

// PackNodeSDK builds a copy of sdk/nodejs as its package.json says (its dependencies
// at the pinned versions, tsc --strict) and packs it; it returns the tarball.
func PackNodeSDK(t testing.TB) string {
	t.Helper()
	env := NodeEnv(t)
	pkg := filepath.Join(t.TempDir(), "sdk")
	CopyDir(t, filepath.Join(RepoRoot(t), "sdk", "nodejs"), pkg)
	Run(t, pkg, env, "npm", append([]string{"install", "--no-save"}, NodePins()...)...)
	Run(t, pkg, env, filepath.Join(pkg, "node_modules", ".bin", "tsc"), "--strict")
	bin := filepath.Join(pkg, "bin")
	for _, f := range []string{"package.json", "README.md"} {
		CopyFile(t, filepath.Join(pkg, f), filepath.Join(bin, f))
	}
	Run(t, bin, env, "npm", "pack")
	tarballs, err := filepath.Glob(filepath.Join(bin, "*.tgz"))
	if err != nil || len(tarballs) != 1 {
		t.Fatalf("npm pack made %d tarballs (%v), want 1", len(tarballs), err)
	}
	return tarballs[0]
}
