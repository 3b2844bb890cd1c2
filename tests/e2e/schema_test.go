package e2e

import (
	"encoding/json"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
)

// The real CLI loads the built plugin and reads its schema, as `pulumi package
// get-schema` does for users and SDK generation.
func TestPulumiPackageGetSchema(t *testing.T) {
	t.Parallel()
	stdout, stderr, err := pulumicli.New(t).Output("package", "get-schema", plugin.Path(t))
	if err != nil {
		t.Fatalf("pulumi package get-schema: %v\nstderr:\n%s", err, stderr)
	}
	var doc struct {
		Name      string                     `json:"name"`
		Version   string                     `json:"version"`
		Resources map[string]json.RawMessage `json:"resources"`
		Functions map[string]json.RawMessage `json:"functions"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("output is not a schema: %v\n%s", err, stdout)
	}
	if doc.Name != "endpoints" || doc.Version == "" {
		t.Errorf("name/version = %q/%q, want endpoints and the plugin's version", doc.Name, doc.Version)
	}
	if len(doc.Resources) != 2 || len(doc.Functions) != 2 {
		t.Errorf("got %d resources and %d functions, want 2 and 2", len(doc.Resources), len(doc.Functions))
	}
}
