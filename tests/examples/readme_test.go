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
	section := "## A first program\n\n```sh\nnpm install a\n```\n\n```typescript\nconst a = 1;\n```\n\n```yaml\nname: a\n```\n\n"
	for _, tc := range []struct {
		name, readme string
		want         firstProgram
		wantErr      string
	}{
		{
			name:   "one block of each, other sections left out",
			readme: "# X\n\n```sh\nnpm install\n```\n\n" + section + "## Documentation\n\n```yaml\nname: b\n```\n",
			want:   firstProgram{npmInstall: "npm install a\n", typescript: "const a = 1;\n", yaml: "name: a\n"},
		},
		{name: "no section", readme: "# X\n\n```sh\nkubectl apply\n```\n", wantErr: `no section "## A first program"`},
		{name: "two programs", readme: section + "```yaml\nname: b\n```\n## Next\n", wantErr: "has 2 ```yaml blocks"},
		{name: "no sh block", readme: "## A first program\n\n```yaml\nname: a\n```\n## Next\n", wantErr: "has 0 ```sh blocks"},
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
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(firstProgram{})); diff != "" {
				t.Errorf("parseFirstProgram (-want +got):\n%s", diff)
			}
		})
	}
}
