package secret

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

func s(v property.Value) property.Value { return v.WithSecret(true) }

func str(x string) property.Value { return property.New(x) }

func obj(kv ...any) property.Value {
	m := map[string]property.Value{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(property.Value)
	}
	return property.New(m)
}

func list(vs ...property.Value) property.Value { return property.New(vs) }

// The scopes a program's secrets make secret (Seal, as Fields names them), in an
// answer that the server reordered and grew: whole fields, metadata keys, every field
// that holds a secret string.
func TestSeal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		inputs, live property.Value
		want         []string
	}{{
		name:   "an address deep in endpoints makes endpoints secret, wherever it goes",
		inputs: obj("endpoints", list(obj("addresses", list(str("10.0.0.1"))), obj("addresses", list(s(str("10.0.0.2")))))),
		live:   obj("endpoints", list(obj("addresses", list(str("10.0.0.2")))), "addressType", str("IPv4")),
		want:   []string{"endpoints"},
	}, {
		name:   "a label makes the labels secret, not the rest of the metadata",
		inputs: obj("metadata", obj("name", str("web"), "labels", obj("team", s(str("a"))))),
		live:   obj("metadata", obj("name", str("web"), "uid", str("u"), "labels", obj("team", str("a"), "x", str("y")))),
		want:   []string{"metadata.labels"},
	}, {
		name:   "a secret metadata makes all of it secret",
		inputs: obj("metadata", s(obj("name", str("web")))),
		live:   obj("metadata", obj("name", str("web"), "uid", str("u"))),
		want:   []string{"metadata"},
	}, {
		name:   "items itself",
		inputs: obj("items", s(list(obj("subsets", list())))),
		live:   obj("items", list(obj("subsets", list(obj("addresses", list(obj("ip", str("10.0.0.9")))))))),
		want:   []string{"items"},
	}, {
		name:   "a secret string another client copied into another field",
		inputs: obj("ports", list(obj("name", s(str("admin-port"))))),
		live:   obj("ports", list(), "endpoints", list(obj("hostname", str("admin-port")))),
		want:   []string{"endpoints", "ports"},
	}, {
		name:   "nothing secret",
		inputs: obj("endpoints", list(obj("addresses", list(str("10.0.0.1"))))),
		live:   obj("endpoints", list(obj("addresses", list(str("10.0.0.1"))))),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Of(tt.inputs.AsMap()).Fields(tt.live.AsMap())
			if diff := cmp.Diff(tt.want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b }), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("secret fields (-want +got):\n%s", diff)
			}
		})
	}
}

// Text says [secret] for every form of a secret string a message may hold, and leaves
// alone what only looks like part of a short one.
func TestText(t *testing.T) {
	t.Parallel()
	ctx := With(t.Context(), Values(obj("a", s(str("2001:db8:0:0::1")), "b", s(list(str("010.1.2.3"), str("x"))),
		"c", s(str(`say "hi"`))).AsMap())...)
	tests := map[string]string{
		`subsets[0].addresses[0].ip: IPv6 address "2001:db8:0:0::1" should be in RFC 5952 canonical format ("2001:db8::1")`: `subsets[0].addresses[0].ip: IPv6 address "[secret]" should be in RFC 5952 canonical format ("[secret]")`,
		`non-standard IP address "010.1.2.3": use "10.1.2.3"`:                                                               `non-standard IP address "[secret]": use "[secret]"`,
		`label x=y on box-x, not xylophone`:                                                                                 `label [secret]=y on box-[secret], not xylophone`,
		`annotation: "say \"hi\""`:                                                                                          `annotation: "[secret]"`,
		`nothing here`:                                                                                                      `nothing here`,
	}
	for in, want := range tests {
		if got := Text(ctx, in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	err := errors.New(`creating 2001:db8:0:0::1 failed`)
	if got := Error(ctx, err); got.Error() != "creating [secret] failed" || !errors.Is(got, err) {
		t.Errorf("Error = %v (wrapping the error: %t), want it redacted and wrapping the error", got, errors.Is(got, err))
	}
	if got := Text(t.Context(), "2001:db8:0:0::1"); got != "2001:db8:0:0::1" {
		t.Errorf("a context without secrets redacted %q", got)
	}
}

// Every log line of the provider goes through Logger: no package of the plugin asks
// pulumi-go-provider for its logger directly.
func TestEveryLogLineIsRedacted(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			filepath.Base(filepath.Dir(path)) == "secret" {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "GetLogger" {
				t.Errorf("%s calls GetLogger: log through secret.Logger, which redacts the request's secrets", path)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
