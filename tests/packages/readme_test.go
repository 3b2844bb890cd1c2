package packages

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/registries"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// installPage is the page that holds the install block, relative to the repository
// root; the README links to its section "From a clone".
const installPage = "docs/installation-configuration.md"

// cloneLines are the first lines of the install-from-a-clone block: the clone itself,
// which the test does not run (the repository under test is the clone).
var cloneLines = []string{
	"git clone https://github.com/endpoints-provider/pulumi-endpoints",
	"cd pulumi-endpoints",
}

// installSteps are the commands the install page's section "From a clone" has a
// user run.
type installSteps struct {
	// clone runs in the clone, after cloneLines: it builds dist/, exports what the
	// SDK lines use and installs the plugin.
	clone string
	// sdk holds each language's line (continuation lines joined), by language:
	// typescript, python, go, java.
	sdk map[string]string
}

var (
	installSection = regexp.MustCompile("(?ms)^### From a clone\n(.*?)^#{1,3} ")
	shBlock        = regexp.MustCompile("(?ms)^```sh\n(.*?)^```$")
	// languageTag is the comment that ends an SDK line and names its language.
	languageTag = regexp.MustCompile(`#\s*(TypeScript|Python|Go|Java)\b[^#]*$`)
)

// parseInstall returns the steps of the install page's section "### From a clone"
// (up to the next heading of level 3 or higher): two ```sh blocks, the first
// starting with cloneLines, the second one line per language, each ending with a
// comment naming it.
func parseInstall(page string) (installSteps, error) {
	m := installSection.FindStringSubmatch(page)
	if m == nil {
		return installSteps{}, errors.New(`no section "### From a clone" followed by another heading`)
	}
	blocks := shBlock.FindAllStringSubmatch(m[1], -1)
	if len(blocks) != 2 {
		return installSteps{}, fmt.Errorf("the section From a clone has %d ```sh blocks, want 2 (the clone's steps, the SDK lines)", len(blocks))
	}
	lines := strings.SplitAfter(blocks[0][1], "\n")
	for i, want := range cloneLines {
		if i >= len(lines) || strings.TrimSpace(lines[i]) != want {
			return installSteps{}, fmt.Errorf("the first block of the section From a clone does not start with %q", strings.Join(cloneLines, "\n"))
		}
	}
	st := installSteps{clone: strings.Join(lines[len(cloneLines):], ""), sdk: map[string]string{}}
	for _, line := range strings.Split(strings.TrimSpace(strings.ReplaceAll(blocks[1][1], "\\\n", "")), "\n") {
		tag := languageTag.FindStringSubmatch(line)
		if tag == nil {
			return installSteps{}, fmt.Errorf("the SDK line %q does not end with a comment naming its language", line)
		}
		lang := strings.ToLower(tag[1])
		if _, dup := st.sdk[lang]; dup {
			return installSteps{}, fmt.Errorf("two SDK lines for %s", tag[1])
		}
		st.sdk[lang] = line + "\n"
	}
	for _, lang := range []string{"typescript", "python", "go", "java"} {
		if st.sdk[lang] == "" {
			return installSteps{}, fmt.Errorf("no SDK line for %s", lang)
		}
	}
	return st, nil
}

func TestParseInstall(t *testing.T) {
	t.Parallel()
	clone := "```sh\ngit clone https://github.com/endpoints-provider/pulumi-endpoints\ncd pulumi-endpoints\nmake dist\n```\n"
	sdks := "```sh\nnpm install x  # TypeScript, JavaScript\npip install \\\n  y  # Python\ngo get z  # Go\nmvn w  # Java: then\n```\n"
	for _, tc := range []struct {
		name, readme string
		want         installSteps
		wantErr      string
	}{
		{
			name:   "clone and one line per language",
			readme: "# X\n\n### From a clone\n\ntext\n\n" + clone + "\n" + sdks + "\n#### A detail\n\n### Next\n\n```sh\nls\n```\n",
			want: installSteps{clone: "make dist\n", sdk: map[string]string{
				"typescript": "npm install x  # TypeScript, JavaScript\n", "python": "pip install   y  # Python\n",
				"go": "go get z  # Go\n", "java": "mvn w  # Java: then\n",
			}},
		},
		{name: "no section", readme: "## Install\n" + clone + sdks + "## Next\n", wantErr: `no section "### From a clone"`},
		{name: "one block", readme: "### From a clone\n" + clone + "## Next\n", wantErr: "has 1 ```sh blocks"},
		{name: "no clone", readme: "### From a clone\n```sh\nmake dist\n```\n" + sdks + "## Next\n", wantErr: "does not start with"},
		{name: "untagged line", readme: "### From a clone\n" + clone + "```sh\nnpm install x\n```\n## Next\n", wantErr: "does not end with a comment"},
		{name: "missing language", readme: "### From a clone\n" + clone + "```sh\nnpm i x  # TypeScript\n```\n## Next\n", wantErr: "no SDK line for python"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseInstall(tc.readme)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parseInstall: err = %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(installSteps{})); diff != "" {
				t.Errorf("parseInstall (-want +got):\n%s", diff)
			}
		})
	}
}

// installUser is a user following the install page's section From a clone: the shell
// they type in, its exported variables kept in a file between commands (export -p),
// and the PULUMI_HOME they install the plugin into.
type installUser struct {
	env     []string
	home    string
	state   string
	version string
}

// installTimeout bounds one step of the install page's commands; `make dist` after
// `make test` built dist/ does nothing, and an SDK install takes seconds to a minute.
const installTimeout = 20 * time.Minute

// TestInstallFromClone follows the install page's section From a clone as written:
// its first block, but the clone, in the repository (`make dist`, which finds dist/ up to date after
// `make test`; the exports; `pulumi plugin install --file` into an empty PULUMI_HOME),
// then each language's SDK line in a new project of that language, which then runs a
// program with what was installed: the TypeScript, Python and Go programs of
// testdata/ (up and destroy against the control plane, with the plugin installed
// ahead and nothing downloaded), and the Java program of tests/release compiled with
// Maven against the installed jar.
func TestInstallFromClone(t *testing.T) {
	t.Parallel()
	root := toolchain.RepoRoot(t)
	st, err := parseInstall(toolchain.ReadFile(t, filepath.Join(root, filepath.FromSlash(installPage))))
	if err != nil {
		t.Fatalf("%s: %v", installPage, err)
	}
	u := newInstallUser(t)
	u.bash(t, "the install page's install steps in the clone", root, st.clone+"export -p > "+shellQuote(u.state)+"\n")
	if got, want := installedPlugins(t, u.home), []string{"resource-endpoints-v" + u.version}; !cmp.Equal(got, want) {
		t.Fatalf("after the install page's plugin install, PULUMI_HOME/plugins holds %v, want %v", got, want)
	}
	for lang, run := range map[string]func(t *testing.T, u *installUser, line string){
		"typescript": installTypeScript, "python": installPython, "go": installGo, "java": installJava,
	} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			run(t, u, st.sdk[lang])
		})
	}
}

// newInstallUser makes the user's environment: an empty PULUMI_HOME, the pulumi CLI on
// PATH and no plugin, the shared download caches of npm, pip, Go and Maven (Go's module
// cache their own: a shared one would keep an earlier build of the SDK module), and
// none of the make variables `make test` passes down.
func newInstallUser(t *testing.T) *installUser {
	t.Helper()
	home := t.TempDir()
	cli := asset(t, "TEST_ASSET_PULUMI")
	env := []string{
		"PULUMI_HOME=" + home,
		"PULUMI_SKIP_UPDATE_CHECK=true",
		"NO_COLOR=1",
		"PATH=" + userPath(t, filepath.Dir(cli)),
		"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "MAKEOVERRIDES=",
		"GOPROXY=" + strings.Join(registries.SharedModuleDownloads(t), ","),
		"GOMODCACHE=" + t.TempDir(),
		"GOFLAGS=-modcacherw -trimpath",
		"GOWORK=off",
		"GOTOOLCHAIN=local",
		"MAVEN_OPTS=-Dmaven.repo.local=" + registries.MavenRepo(t) + " -Djansi.noreset=true",
	}
	env = append(env, toolchain.NodeEnv(t)...)
	env = append(env, toolchain.PythonEnv(t)...)
	return &installUser{env: env, home: home, state: filepath.Join(t.TempDir(), "exports.sh"), version: toolchain.Version(t)}
}

// bash runs script with bash in dir, in the user's shell: the variables the earlier
// steps exported, then the script, stopping at the first failing command.
func (u *installUser) bash(t *testing.T, what, dir, script string) {
	t.Helper()
	if _, err := os.Stat(u.state); err == nil {
		script = "source " + shellQuote(u.state) + "\ncd " + shellQuote(dir) + "\n" + script
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), installTimeout)
	defer cancel()
	out, err := toolchain.Command(ctx, dir, u.env, "bash", "-euxo", "pipefail", "-c", script)
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, out)
	}
	t.Logf("%s: %s", what, time.Since(start).Round(100*time.Millisecond))
}

// shellQuote quotes s for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// installTypeScript: the project `pulumi new typescript` makes (@pulumi/pulumi,
// TypeScript and @types/node, pinned), the install page's npm line, then testdata/nodejs
// compiled and run.
func installTypeScript(t *testing.T, u *installUser, line string) {
	p := newUserProjectHome(t, "nodejs", u.home, u.version)
	toolchain.WriteFile(t, filepath.Join(p.dir, "package.json"), `{"name": "readme-nodejs", "private": true}`+"\n")
	toolchain.Run(t, p.dir, u.env, "npm", append([]string{"install"}, toolchain.NodePins()...)...)
	u.bash(t, "the install page's TypeScript line", p.dir, line)
	wantInstalledNodePackage(t, filepath.Join(p.dir, "node_modules", filepath.FromSlash(nodePackage)), u.version)
	for _, f := range []string{"index.ts", "tsconfig.json"} {
		toolchain.CopyFile(t, filepath.Join("testdata", "nodejs", f), filepath.Join(p.dir, f))
	}
	toolchain.Run(t, p.dir, u.env, filepath.Join(p.dir, "node_modules", ".bin", "tsc"))
	p.lifecycle(t, []string{"node", filepath.Join(p.dir, "bin", "index.js")})
}

// installPython: the virtualenv `pulumi new python` makes (venv/, pulumi pinned), the
// install page's pip line, then testdata/python run with the virtualenv's python.
func installPython(t *testing.T, u *installUser, line string) {
	p := newUserProjectHome(t, "python", u.home, u.version)
	venv := filepath.Join(p.dir, "venv")
	if out, err := toolchain.Command(t.Context(), p.dir, nil, "python3", "-m", "venv", venv); err != nil {
		t.Fatalf("python3 -m venv failed (on Debian it needs the python3-venv package): %v\n%s", err, out)
	}
	python := filepath.Join(venv, "bin", "python")
	toolchain.Run(t, p.dir, u.env, python, "-m", "pip", "install", "--quiet", "pulumi=="+toolchain.PulumiVersion)
	u.bash(t, "the install page's Python line", p.dir, line)
	wantInstalledPythonPackage(t, python, toolchain.PythonPackageVersion(t, u.version))
	toolchain.CopyFile(t, filepath.Join("testdata", "python", "main.py"), filepath.Join(p.dir, "main.py"))
	p.lifecycle(t, []string{python, filepath.Join(p.dir, "main.py")})
}

// installGo: a new module (go mod init), the install page's go get line, then testdata/go
// built (go mod tidy, go build) and run; then the line in a copy of the Go example.
func installGo(t *testing.T, u *installUser, line string) {
	p := newUserProjectHome(t, "go", u.home, u.version)
	toolchain.CopyFile(t, filepath.Join("testdata", "go", "main.go"), filepath.Join(p.dir, "main.go"))
	toolchain.Run(t, p.dir, u.env, "go", "mod", "init", "example.com/readme-go")
	u.bash(t, "the install page's Go line", p.dir, line)
	toolchain.Run(t, p.dir, u.env, "go", "mod", "tidy")
	out := toolchain.Run(t, p.dir, u.env, "go", "list", "-m", "-f", "{{.Version}} {{.Replace}}", goSDKModule)
	if got, want := strings.TrimSpace(out), "v"+u.version+" <nil>"; got != want {
		t.Errorf("the program's module has %s %s, want %s not replaced", goSDKModule, got, want)
	}
	program := filepath.Join(t.TempDir(), "program")
	toolchain.Run(t, p.dir, u.env, "go", "build", "-o", program, ".")
	p.lifecycle(t, []string{program})

	// The same line in a copy of the Go example, whose go.mod names the last release,
	// which no proxy serves yet; then the example's own `go mod tidy`, and a build.
	example := t.TempDir()
	toolchain.CopyDir(t, filepath.Join(toolchain.RepoRoot(t), "examples", "kubernetes", "go"), example)
	u.bash(t, "the install page's Go line in the Go example", example, line)
	toolchain.Run(t, example, u.env, "go", "mod", "tidy")
	toolchain.Run(t, example, u.env, "go", "build", "-o", filepath.Join(t.TempDir(), "example"), ".")
}

// installJava: the install page's mvn line, then the Java program of tests/release, which
// depends on com.endpointsprovider:endpoints at the installed version, compiled with
// Maven against the Maven repository the line installed into.
func installJava(t *testing.T, u *installUser, line string) {
	dir := t.TempDir()
	u.bash(t, "the install page's Java line", dir, line)
	toolchain.CopyDir(t, filepath.Join("..", "release", "testdata", "java"), dir)
	pom := filepath.Join(dir, "pom.xml")
	toolchain.WriteFile(t, pom, strings.Replace(toolchain.ReadFile(t, pom), "ENDPOINTS_VERSION", u.version, 1))
	toolchain.Run(t, dir, u.env, "mvn", "-B", "-q", "compile")
}
