package examples

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSteps(t *testing.T) {
	t.Parallel()
	shared := "# Examples\n\n## Needs\n\nGo.\n\n## Run one\n\n```sh\npulumi stack init dev\npulumi up\n```\n\n" +
		"### Clean up\n\n```sh\npulumi destroy\n```\n\n## Other\n\n```sh\nrm -rf /\n```\n"
	for _, tc := range []struct {
		name, readme string
		want         steps
		wantErr      string
	}{
		{
			name: "blocks in order, split at destroy",
			readme: "# X\n\n```sh\nnpm install\npulumi stack init dev\n```\n\ntext `pulumi up`\n\n" +
				"```sh\nkubectl apply -f - <<'EOF'\nkind: Service\nEOF\n```\n\n```text\npulumi destroy\n```\n\n" +
				"```sh\npulumi up\n```\n\n```sh\npulumi destroy\nkubectl delete service web\n```\n",
			want: steps{
				setup:   "npm install\npulumi stack init dev\nkubectl apply -f - <<'EOF'\nkind: Service\nEOF\npulumi up\n",
				cleanup: "pulumi destroy\nkubectl delete service web\n",
			},
		},
		{
			name: "own blocks, then the linked shared sections with their subsections, once each",
			readme: "# X\n\nSee [needs](../../README.md#needs).\n\n```sh\nnpm install\n```\n\n" +
				"then [the steps](../../README.md#run-one), [again](../../README.md#run-one).\n",
			want: steps{setup: "npm install\npulumi stack init dev\npulumi up\n", cleanup: "pulumi destroy\n"},
		},
		{name: "a link to no section", readme: "[x](../../README.md#nothing)\n", wantErr: "has no such heading"},
		{name: "no steps", readme: "# X\n\n```yaml\na: b\n```\n[n](../../README.md#needs)\n", wantErr: "no ```sh block"},
		{name: "no destroy", readme: "```sh\npulumi up\n```\n", wantErr: "no `pulumi destroy` line"},
		{name: "no up", readme: "```sh\npulumi stack init dev\npulumi destroy\n```\n", wantErr: "have 0 `pulumi up` lines"},
		{name: "two ups", readme: "```sh\npulumi up\npulumi up --yes\npulumi destroy\n```\n", wantErr: "have 2 `pulumi up` lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseSteps(tc.readme, shared)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parseSteps: err = %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(steps{})); diff != "" {
				t.Errorf("parseSteps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseFirstProgram(t *testing.T) {
	t.Parallel()
	yaml := "### YAML\n\n```sh\nmake install-yaml\n```\n\n```yaml\nname: a\n```\n\n```sh\npulumi stack init dev\npulumi up\n```\n\n"
	ts := "### TypeScript\n\n```sh\nmake install-nodejs\n```\n\n```sh\nnpm install a\n```\n\n```typescript\nconst a = 1;\n```\n\n```sh\npulumi up\n```\n\n"
	section := "## A first program\n\n```sh\nmake cluster\n```\n\n" + yaml + ts
	for _, tc := range []struct {
		name, readme string
		want         firstProgram
		wantErr      string
	}{
		{
			name:   "the cluster, then each language, other sections left out",
			readme: "# X\n\n```sh\nnpm install\n```\n\n" + section + "## Documentation\n\n```yaml\nname: b\n```\n",
			want: firstProgram{cluster: "make cluster\n", langs: map[string]firstProgramLanguage{
				"yaml":       {install: "make install-yaml\n", program: "name: a\n", run: "pulumi stack init dev\npulumi up\n"},
				"typescript": {install: "make install-nodejs\n", project: "npm install a\n", program: "const a = 1;\n", run: "pulumi up\n"},
			}},
		},
		{name: "no section", readme: "# X\n\n```sh\nkubectl apply\n```\n", wantErr: `no section "## A first program"`},
		{name: "no cluster", readme: "## A first program\n\n" + yaml + "## Next\n", wantErr: "0 ```sh blocks before"},
		{name: "no language", readme: "## A first program\n\n```sh\nmake cluster\n```\n## Next\n", wantErr: `no "### " part`},
		{name: "two programs", readme: "## A first program\n\n```sh\nmake cluster\n```\n" + yaml + "```yaml\nname: b\n```\n## Next\n", wantErr: "2 program blocks"},
		{name: "no install", readme: "## A first program\n\n```sh\nmake cluster\n```\n### YAML\n```yaml\nname: a\n```\n```sh\npulumi up\n```\n## Next\n", wantErr: "no ```sh block before the program"},
		{name: "no up", readme: "## A first program\n\n```sh\nmake cluster\n```\n### YAML\n```sh\nmake install-yaml\n```\n```yaml\nname: a\n```\n## Next\n", wantErr: "one `pulumi up`"},
		{name: "one language twice", readme: "## A first program\n\n```sh\nmake cluster\n```\n" + yaml + yaml + "## Next\n", wantErr: "two yaml programs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseFirstProgram(tc.readme)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parseFirstProgram: err = %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(firstProgram{}, firstProgramLanguage{})); diff != "" {
				t.Errorf("parseFirstProgram (-want +got):\n%s", diff)
			}
		})
	}
}
