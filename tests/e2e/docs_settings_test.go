package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// withKubernetesGuide is the guide to using the provider beside pulumi-kubernetes.
const withKubernetesGuide = "docs/guides/with-kubernetes.md"

// schemaProperty is a property of a Pulumi package schema, as far as these tests read it.
type schemaProperty struct {
	Ref         string `json:"$ref"`
	DefaultInfo struct {
		Environment []string `json:"environment"`
	} `json:"defaultInfo"`
}

// packageSchema is the part of a Pulumi package schema that holds its settings.
type packageSchema struct {
	Config struct {
		Variables map[string]schemaProperty `json:"variables"`
	} `json:"config"`
	Provider struct {
		InputProperties map[string]schemaProperty `json:"inputProperties"`
	} `json:"provider"`
	Types map[string]struct {
		Properties map[string]schemaProperty `json:"properties"`
	} `json:"types"`
}

// setting finds a provider setting by name ("qps", or "kubeClientSettings.qps" for a
// property of an object-typed setting) and returns its environment variable ("" when
// it has none).
func (s packageSchema) setting(name string) (env string, ok bool) {
	top, sub, nested := strings.Cut(name, ".")
	p, ok := s.Provider.InputProperties[top]
	if !ok {
		p, ok = s.Config.Variables[top]
	}
	if ok && nested {
		p, ok = s.Types[strings.TrimPrefix(p.Ref, "#/types/")].Properties[sub]
	}
	if !ok || len(p.DefaultInfo.Environment) == 0 {
		return "", ok
	}
	return p.DefaultInfo.Environment[0], true
}

// readSchema decodes the package schema at path.
func readSchema(t *testing.T, path string) packageSchema {
	t.Helper()
	var s packageSchema
	if err := json.Unmarshal([]byte(toolchain.ReadFile(t, path)), &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// pulumiKubernetesSchema reads the schema of the pulumi-kubernetes module that
// tools/pulumi-kubernetes pins, from the module cache.
func pulumiKubernetesSchema(t *testing.T, root string) packageSchema {
	t.Helper()
	gomod := toolchain.ReadFile(t, filepath.Join(root, "tools", "pulumi-kubernetes", "go.mod"))
	m := regexp.MustCompile(`(?m)^require (github.com/pulumi/pulumi-kubernetes/provider/v4) (\S+)`).FindStringSubmatch(gomod)
	if m == nil {
		t.Fatal("tools/pulumi-kubernetes/go.mod requires no pulumi-kubernetes provider module")
	}
	// The module cache holds it once `make tools` built the plugin; else download it.
	download := exec.CommandContext(t.Context(), "go", "mod", "download", "-json", m[1]+"@"+m[2])
	download.Dir = t.TempDir()
	out, err := download.Output()
	var module struct{ Dir string }
	if err != nil || json.Unmarshal(out, &module) != nil || module.Dir == "" {
		t.Fatalf("go mod download %s@%s: %v\n%s", m[1], m[2], err, out)
	}
	path := filepath.Join(module.Dir, "cmd", "pulumi-resource-kubernetes", "schema.json")
	return readSchema(t, path)
}

// backquoted returns the text between the first pair of backquotes of cell, or "" when
// the cell says none.
func backquoted(cell string) string {
	m := regexp.MustCompile("`([^`]+)`").FindStringSubmatch(cell)
	if m == nil {
		return ""
	}
	return m[1]
}

// The guide's table of pulumi-kubernetes' settings and this provider's
// (docs/guides/with-kubernetes.md) names, in each row, settings and environment
// variables that the two providers' schemas have, as the table pairs them.
func TestSettingsMappingMatchesTheSchemas(t *testing.T) {
	t.Parallel()
	root := toolchain.RepoRoot(t)
	ours := readSchema(t, filepath.Join(root, "schema.json"))
	theirs := pulumiKubernetesSchema(t, root)
	page := toolchain.ReadFile(t, filepath.Join(root, filepath.FromSlash(withKubernetesGuide)))
	_, section, _ := strings.Cut(page, "\n## pulumi-kubernetes' other settings, and this provider's\n")
	section, _, _ = strings.Cut(section, "\n## ")
	rows := 0
	for line := range strings.SplitSeq(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), "|")
		if !strings.HasPrefix(line, "| `") || len(cells) != 5 {
			continue
		}
		rows++
		for _, side := range []struct {
			schema         packageSchema
			who            string
			setting, envOf string
		}{
			{theirs, "pulumi-kubernetes", cells[0], cells[1]},
			{ours, "this provider", cells[2], cells[3]},
		} {
			name, wantEnv := backquoted(side.setting), backquoted(side.envOf)
			if name == "" {
				continue // no such setting on this side
			}
			env, ok := side.schema.setting(name)
			switch {
			case !ok:
				t.Errorf("%s has no setting %s", side.who, name)
			case env != wantEnv:
				t.Errorf("%s's %s falls back to %q, the guide says %q", side.who, name, env, wantEnv)
			}
		}
	}
	if rows < 10 {
		t.Errorf("the guide's table has %d rows of settings, want the 10 or more it had", rows)
	}
}
