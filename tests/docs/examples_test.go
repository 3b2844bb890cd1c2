package docs_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/snippets"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
	"github.com/google/go-cmp/cmp"
)

// TestEveryTokenHasEveryLanguage checks that every resource and function description
// of schema.json has a snippet in each of the six languages, and that the registry
// page docs/_index.md has, in each language, one snippet per resource and function.
func TestEveryTokenHasEveryLanguage(t *testing.T) {
	t.Parallel()
	schema, err := os.ReadFile(filepath.Join(toolchain.RepoRoot(t), "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	descriptions, err := snippets.Descriptions(schema)
	if err != nil {
		t.Fatal(err)
	}
	if len(descriptions) != 4 {
		t.Errorf("schema.json has %d resources and functions, want the 4 the docs cover", len(descriptions))
	}
	for _, lang := range snippets.Languages {
		bySource := map[string][]snippets.Example{}
		for _, e := range snippets.Examples(t, lang) {
			bySource[e.Source] = append(bySource[e.Source], e)
		}
		for source, examples := range map[string][]snippets.Example{"schema.json": bySource["schema.json"], snippets.IndexPage: bySource[snippets.IndexPage]} {
			if len(examples) != len(descriptions) {
				t.Errorf("%s has %d %s snippets, want %d: one per resource and function", source, len(examples), lang, len(descriptions))
			}
			for token := range descriptions {
				if !slices.ContainsFunc(examples, func(e snippets.Example) bool { return e.Token == token || names(e.Code, token) }) {
					t.Errorf("%s has no %s snippet of %s", source, lang, token)
				}
			}
		}
	}
}

// names tells whether code names the resource or function token in any language's
// spelling: its last part without a "get", case and underscores aside
// (getImportDataFile: LookupImportDataFile, get_import_data_file, ...).
func names(code, token string) bool {
	short := strings.TrimPrefix(token[strings.LastIndex(token, ":")+1:], "get")
	return strings.Contains(strings.ToLower(strings.ReplaceAll(code, "_", "")), strings.ToLower(short))
}

// TestParseDescription checks the parser on descriptions in the codegen's format,
// and that it refuses malformed ones.
func TestParseDescription(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		description string
		want        []snippets.Example
		wantErr     string
	}{
		{
			name: "two languages",
			description: "A list.\n\n{{% examples %}}\n## Example Usage\n{{% example %}}\n### A title\n\n" +
				"```typescript\nconst a = 1;\n```\n```sh\npulumi up\n```\n```yaml\nresources: {}\n```\n{{% /example %}}\n{{% /examples %}}",
			want: []snippets.Example{
				{Source: "schema.json", Token: spec.EndpointsListToken, Title: "A title", Lang: "typescript", Code: "const a = 1;\n", Name: "EndpointsList1"},
				{Source: "schema.json", Token: spec.EndpointsListToken, Title: "A title", Lang: "yaml", Code: "resources: {}\n", Name: "EndpointsList1"},
			},
		},
		{name: "no examples", description: "A list.", wantErr: "0 {{% examples %}} blocks"},
		{
			name:        "no title",
			description: "{{% examples %}}\n{{% example %}}\n```go\npackage main\n```\n{{% /example %}}\n{{% /examples %}}",
			wantErr:     "has no ### title",
		},
		{
			name:        "a language twice",
			description: "{{% examples %}}\n{{% example %}}\n### T\n```go\nx\n```\n```go\ny\n```\n{{% /example %}}\n{{% /examples %}}",
			wantErr:     "two go code blocks",
		},
		{
			name:        "an unknown language",
			description: "{{% examples %}}\n{{% example %}}\n### T\n```ts\nx\n```\n{{% /example %}}\n{{% /examples %}}",
			wantErr:     `a code block in "ts"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := snippets.ParseDescription(spec.EndpointsListToken, tt.description)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseDescription error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseDescription (-want +got):\n%s", diff)
			}
		})
	}
}
