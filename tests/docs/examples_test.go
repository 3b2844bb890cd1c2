package docs_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/docs"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
	"github.com/google/go-cmp/cmp"
)

// TestEveryTokenHasEveryLanguage checks that every resource and function description
// of schema.json, and the registry page docs/_index.md, has a snippet in each of the
// six languages.
func TestEveryTokenHasEveryLanguage(t *testing.T) {
	t.Parallel()
	schema, err := os.ReadFile(filepath.Join(toolchain.RepoRoot(t), "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	descriptions, err := docs.Descriptions(schema)
	if err != nil {
		t.Fatal(err)
	}
	if len(descriptions) != 4 {
		t.Errorf("schema.json has %d resources and functions, want the 4 the docs cover", len(descriptions))
	}
	langs := map[string][]string{docs.IndexPage: nil}
	for token := range descriptions {
		langs[token] = nil
	}
	for _, e := range docs.All(t) {
		key := e.Token
		if key == "" {
			key = e.Source
		}
		langs[key] = append(langs[key], e.Lang)
	}
	for key, got := range langs {
		for _, lang := range docs.Languages {
			if !slices.Contains(got, lang) {
				t.Errorf("%s has no %s example (it has %v)", key, lang, got)
			}
		}
	}
	for _, lang := range docs.Languages {
		if n := len(docs.Examples(t, lang)); n != len(langs) {
			t.Errorf("Examples(%q) returned %d snippets, want %d (one per resource, function and the index page)", lang, n, len(langs))
		}
	}
}

// TestParseDescription checks the parser on descriptions in the codegen's format,
// and that it refuses malformed ones.
func TestParseDescription(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		description string
		want        []docs.Example
		wantErr     string
	}{
		{
			name: "two languages",
			description: "A list.\n\n{{% examples %}}\n## Example Usage\n{{% example %}}\n### A title\n\n" +
				"```typescript\nconst a = 1;\n```\n```sh\npulumi up\n```\n```yaml\nresources: {}\n```\n{{% /example %}}\n{{% /examples %}}",
			want: []docs.Example{
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
			got, err := docs.ParseDescription(spec.EndpointsListToken, tt.description)
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
