package docs_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// TestConfigurationDocumented checks that docs/installation-configuration.md names,
// in backquotes, every configuration key of the provider (schema.json's
// config.variables and provider.inputProperties) and every environment variable
// they fall back to, so the page cannot fall behind the schema.
func TestConfigurationDocumented(t *testing.T) {
	t.Parallel()
	root := toolchain.RepoRoot(t)
	data, err := os.ReadFile(filepath.Clean(filepath.Join(root, "schema.json")))
	if err != nil {
		t.Fatal(err)
	}
	type property struct {
		DefaultInfo struct {
			Environment []string `json:"environment"`
		} `json:"defaultInfo"`
	}
	var schema struct {
		Config struct {
			Variables map[string]property `json:"variables"`
		} `json:"config"`
		Provider struct {
			InputProperties map[string]property `json:"inputProperties"`
		} `json:"provider"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Clean(filepath.Join(root, "docs", "installation-configuration.md")))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(page)
	if len(schema.Config.Variables) == 0 || len(schema.Provider.InputProperties) == 0 {
		t.Fatal("schema.json has no config.variables or provider.inputProperties")
	}
	for section, props := range map[string]map[string]property{
		"config.variables":         schema.Config.Variables,
		"provider.inputProperties": schema.Provider.InputProperties,
	} {
		for key, p := range props {
			if !strings.Contains(doc, "`"+key+"`") {
				t.Errorf("docs/installation-configuration.md does not name the key `%s` (schema.json %s)", key, section)
			}
			if !strings.Contains(doc, "`endpoints:"+key+"`") {
				t.Errorf("docs/installation-configuration.md does not show the stack setting `endpoints:%s`", key)
			}
			for _, env := range p.DefaultInfo.Environment {
				if !strings.Contains(doc, "`"+env+"`") {
					t.Errorf("docs/installation-configuration.md does not name `%s`, the environment variable of %s (schema.json %s)", env, key, section)
				}
			}
		}
	}
}
