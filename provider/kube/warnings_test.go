package kube

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsAPIDeprecation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice", true},
		{"discovery.k8s.io/v1beta1 EndpointSlice is deprecated in v1.21+, unavailable in v1.25+; use discovery.k8s.io/v1 EndpointSlice", true},
		{"policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+, unavailable in v1.25+", true},
		{"v1 ComponentStatus is deprecated in v1.19+", true},
		{"example.com/v2alpha1 Widget is deprecated", true},
		{"spec.addressType: FQDN endpoints are deprecated", false},
		{`unknown field "spec.bogus"`, false},
		{"metadata.finalizers: \"foo\": prefer a domain-qualified finalizer name", false},
		{"the v1 Endpoints API is deprecated", false},
		{"v1 Endpoints is not deprecated", false},
		{"", false},
	} {
		if got := IsAPIDeprecation(tc.text); got != tc.want {
			t.Errorf("IsAPIDeprecation(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// The deprecation of v1 Endpoints, and only it, points to the guide to moving off it.
func TestEndpointsAdvice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text  string
		guide bool
	}{
		{"v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice", true},
		{"v1 Endpoints is deprecated", true},
		{"v1 EndpointsList is deprecated", false},
		{"discovery.k8s.io/v1beta1 EndpointSlice is deprecated in v1.21+, unavailable in v1.25+", false},
		{"v1 ComponentStatus is deprecated in v1.19+", false},
		{"spec.addressType: FQDN endpoints are deprecated", false},
		{"", false},
	} {
		got := endpointsAdvice(tc.text)
		if tc.guide != strings.Contains(got, MovingOffEndpointsGuide) || tc.guide != (got != "") {
			t.Errorf("endpointsAdvice(%q) = %q, want the guide: %v", tc.text, got, tc.guide)
		}
	}
}

// TestDefaultLabels: slices are written with the provider's managed-by label unless the
// inputs set one; Endpoints get none.
func TestDefaultLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		k      kind
		inputs string
		want   map[string]string
	}{
		{name: "slice without labels", k: endpointSliceKind, inputs: `{"metadata":{"name":"a"}}`,
			want: map[string]string{ManagedByLabel: ManagedBy}},
		{name: "slice with other labels", k: endpointSliceKind, inputs: `{"metadata":{"labels":{"app":"web"}}}`,
			want: map[string]string{"app": "web", ManagedByLabel: ManagedBy}},
		{name: "slice without metadata", k: endpointSliceKind, inputs: `{"addressType":"IPv4"}`,
			want: map[string]string{ManagedByLabel: ManagedBy}},
		{name: "the user's manager wins", k: endpointSliceKind,
			inputs: `{"metadata":{"labels":{"` + ManagedByLabel + `":"my-controller"}}}`,
			want:   map[string]string{ManagedByLabel: "my-controller"}},
		{name: "Endpoints", k: endpointsKind, inputs: `{"metadata":{"labels":{"app":"web"}}}`,
			want: map[string]string{"app": "web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj := tt.k.object(fieldsOf(t, tt.inputs))
			if diff := cmp.Diff(tt.want, obj.GetLabels()); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
		})
	}
}

// TestManagedByWarning: a slice labelled as a controller's own draws a warning naming
// the controller; any other manager none.
func TestManagedByWarning(t *testing.T) {
	t.Parallel()
	tests := []struct {
		manager string
		want    string // part of the warning; "" for none
	}{
		{manager: endpointSliceController, want: "the EndpointSlice controller takes it for one of its own"},
		{manager: mirroringController, want: "the EndpointSlice mirroring controller takes it for one of its own"},
		{manager: ManagedBy},
		{manager: "my-controller"},
	}
	for _, tt := range tests {
		t.Run(tt.manager, func(t *testing.T) {
			t.Parallel()
			obj := endpointSliceKind.object(fieldsOf(t,
				`{"metadata":{"namespace":"n","generateName":"web-","labels":{"`+ManagedByLabel+`":"`+tt.manager+`"}}}`))
			got := managedByWarning(obj)
			switch {
			case tt.want == "" && got != "":
				t.Errorf("warning %q, want none", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("warning %q, want one saying %q", got, tt.want)
			case tt.want != "" && !strings.Contains(got, "EndpointSlice n/web-*"):
				t.Errorf("warning %q does not name the slice n/web-*", got)
			}
		})
	}
}

// shownWarnings collects what the API server's warnings show the user (the engine's
// log, which is slog's without a host) while it runs; not for parallel tests.
func shownWarnings(t *testing.T, run func()) []string {
	t.Helper()
	var shown shownLog
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(&shown))
	run()
	return shown.texts
}

type shownLog struct{ texts []string }

func (*shownLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *shownLog) Handle(_ context.Context, r slog.Record) error {
	if text, ok := strings.CutPrefix(r.Message, "kubernetes API server: "); ok && r.Level == slog.LevelWarn {
		l.texts = append(l.texts, text)
	}
	return nil
}
func (l *shownLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *shownLog) WithGroup(string) slog.Handler      { return l }

// The API server's warnings within Kubernetes.WarningScope: each once per operation;
// that an API version is deprecated once per provider, only by the operations that may
// show it, and never with the suppressDeprecationWarnings setting in force.
//
//nolint:paralleltest // it swaps slog's default logger, where warnings go without an engine
func TestWarningScope(t *testing.T) {
	const (
		deprecated = "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"
		field      = "spec.endpoints[0].addresses: FQDN endpoints are deprecated"
	)
	send := func(ctx context.Context, texts ...string) {
		for _, text := range texts {
			warningLogger{}.HandleWarningHeaderWithContext(ctx, 299, "-", text)
		}
	}
	withAdvice := deprecated + endpointsAdvice(deprecated)
	suppressed := New(Config{})
	suppressed.Configure(Config{SuppressDeprecationWarnings: true})
	for _, tt := range []struct {
		name string
		run  func(ctx context.Context)
		want []string
	}{
		{"each once per operation", func(ctx context.Context) {
			k := New(Config{})
			send(k.WarningScope(ctx, true), deprecated, field, deprecated, field)
		}, []string{withAdvice, field}},
		{"a deprecation once per provider, other warnings once per operation", func(ctx context.Context) {
			k := New(Config{})
			send(k.WarningScope(ctx, true), deprecated, field)
			send(k.WarningScope(ctx, true), deprecated, field)
		}, []string{withAdvice, field, field}},
		{"no deprecation from an operation that may not show it (a preview, a delete)", func(ctx context.Context) {
			k := New(Config{})
			send(k.WarningScope(ctx, false), deprecated, field)
			send(k.WarningScope(ctx, true), deprecated)
		}, []string{field, withAdvice}},
		{"no deprecation with suppressDeprecationWarnings in force", func(ctx context.Context) {
			send(suppressed.WarningScope(ctx, true), deprecated, field)
		}, []string{field}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := shownWarnings(t, func() { tt.run(t.Context()) })
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("warnings shown (-want +got):\n%s", diff)
			}
		})
	}
}
