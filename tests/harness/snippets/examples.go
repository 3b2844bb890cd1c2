package snippets

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// Languages are the code-block languages of the examples, as Pulumi's code
// generators and the registry name them.
var Languages = []string{"typescript", "python", "go", "csharp", "java", "yaml"}

// IndexPage is the registry's overview page of the package, relative to the
// repository root.
const IndexPage = "docs/_index.md"

// Example is one code snippet of the documentation.
type Example struct {
	// Source is where the snippet is: "schema.json" or IndexPage.
	Source string
	// Token is the resource or function whose description holds the snippet; empty
	// for IndexPage.
	Token string
	// Title is the example's "### " heading; empty for IndexPage.
	Title string
	// Lang is the code block's language, one of Languages.
	Lang string
	// Code is the snippet, ending with a newline.
	Code string
	// Name is unique among the snippets of one language and safe as a file or
	// directory name: the token's last part or "index", and a number.
	Name string
}

// String names the snippet for messages: where it is, its title and its language.
func (e Example) String() string {
	if e.Token == "" {
		return fmt.Sprintf("%s (%s)", e.Source, e.Lang)
	}
	return fmt.Sprintf("%s %s %q (%s)", e.Source, e.Token, e.Title, e.Lang)
}

// Examples returns the snippets of one language: those of every resource and
// function description of schema.json, ordered by token, then those of IndexPage.
// It fails the test when a file cannot be read or an examples block is malformed.
func Examples(t testing.TB, lang string) []Example {
	t.Helper()
	var out []Example
	for _, e := range All(t) {
		if e.Lang == lang {
			out = append(out, e)
		}
	}
	return out
}

// All returns the snippets of every language, in the order of Examples.
func All(t testing.TB) []Example {
	t.Helper()
	root := toolchain.RepoRoot(t)
	schema, err := os.ReadFile(filepath.Clean(filepath.Join(root, "schema.json")))
	if err != nil {
		t.Fatal(err)
	}
	descriptions, err := Descriptions(schema)
	if err != nil {
		t.Fatal(err)
	}
	var out []Example
	tokens := make([]string, 0, len(descriptions))
	for token := range descriptions {
		tokens = append(tokens, token)
	}
	sort.Strings(tokens)
	for _, token := range tokens {
		examples, err := ParseDescription(token, descriptions[token])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, examples...)
	}
	page, err := os.ReadFile(filepath.Clean(filepath.Join(root, filepath.FromSlash(IndexPage))))
	if err != nil {
		t.Fatal(err)
	}
	return append(out, ParsePage(IndexPage, string(page))...)
}

// Descriptions returns the description of every resource and function of a schema,
// by token.
func Descriptions(schema []byte) (map[string]string, error) {
	var s struct {
		Resources map[string]struct {
			Description string `json:"description"`
		} `json:"resources"`
		Functions map[string]struct {
			Description string `json:"description"`
		} `json:"functions"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("schema.json: %w", err)
	}
	out := map[string]string{}
	for token, r := range s.Resources {
		out[token] = r.Description
	}
	for token, f := range s.Functions {
		out[token] = f.Description
	}
	return out, nil
}

var (
	examplesBlock = regexp.MustCompile(`(?s)\{\{% examples %\}\}(.*?)\{\{% /examples %\}\}`)
	exampleBlock  = regexp.MustCompile(`(?s)\{\{% example %\}\}(.*?)\{\{% /example %\}\}`)
	titleLine     = regexp.MustCompile(`(?m)^### (.+)$`)
	codeBlock     = regexp.MustCompile("(?ms)^```([a-z]+)\n(.*?)^```[ \t]*$")
)

// ParseDescription returns the snippets of a resource's or function's description,
// in the format Pulumi's code generators filter per language: one
// `{{% examples %}}` block holding `{{% example %}}` blocks, each with a "### "
// title and one fenced code block per language (`sh` blocks, which every language
// keeps, are left out). It is an error when the examples
// block is missing or an example has no title, a language twice or a language not
// in Languages.
func ParseDescription(token, description string) ([]Example, error) {
	blocks := examplesBlock.FindAllStringSubmatch(description, -1)
	if len(blocks) != 1 {
		return nil, fmt.Errorf("schema.json %s: the description has %d {{%% examples %%}} blocks, want 1", token, len(blocks))
	}
	short := token[strings.LastIndex(token, ":")+1:]
	var out []Example
	for i, ex := range exampleBlock.FindAllStringSubmatch(blocks[0][1], -1) {
		title := titleLine.FindStringSubmatch(ex[1])
		if title == nil {
			return nil, fmt.Errorf("schema.json %s: example %d has no ### title", token, i+1)
		}
		seen := map[string]bool{}
		for _, code := range codeBlock.FindAllStringSubmatch(ex[1], -1) {
			lang := code[1]
			if lang == "sh" {
				continue // commands, which the code generators keep for every language
			}
			if !slices.Contains(Languages, lang) {
				return nil, fmt.Errorf("schema.json %s %q: a code block in %q, not one of %v", token, title[1], lang, Languages)
			}
			if seen[lang] {
				return nil, fmt.Errorf("schema.json %s %q: two %s code blocks", token, title[1], lang)
			}
			seen[lang] = true
			out = append(out, Example{
				Source: "schema.json", Token: token, Title: title[1], Lang: lang, Code: code[2],
				Name: fmt.Sprintf("%s%d", short, i+1),
			})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("schema.json %s: the examples block holds no example with code", token)
	}
	return out, nil
}

// ParsePage returns the fenced code blocks of a Markdown page whose language is one
// of Languages (shell commands and other blocks are left out), named after the page
// ("index" for _index.md) and their number within the language.
func ParsePage(source, page string) []Example {
	var out []Example
	prefix := strings.Trim(strings.ReplaceAll(strings.TrimSuffix(filepath.Base(source), ".md"), "-", "_"), "_")
	count := map[string]int{}
	for _, code := range codeBlock.FindAllStringSubmatch(page, -1) {
		lang := code[1]
		if !slices.Contains(Languages, lang) {
			continue
		}
		count[lang]++
		out = append(out, Example{Source: source, Lang: lang, Code: code[2], Name: fmt.Sprintf("%s%d", prefix, count[lang])})
	}
	return out
}
