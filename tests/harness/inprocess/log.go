package inprocess

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// Log is a slog.Handler that keeps every record the provider logs. Set it as slog's
// default logger in TestMain (see the package documentation); its zero value is
// ready to use.
type Log struct {
	mu sync.Mutex
	// lines holds every record as one line: "LEVEL message key=value ...".
	lines []string
	// warnings holds the messages of the warnings (and worse) by the URN of the
	// resource they are about.
	warnings map[string][]string
}

// Enabled implements slog.Handler: every level is kept.
func (l *Log) Enabled(context.Context, slog.Level) bool { return true }

// Handle implements slog.Handler.
func (l *Log) Handle(_ context.Context, r slog.Record) error {
	var line strings.Builder
	var urn string
	found := false
	fmt.Fprintf(&line, "%s %s", r.Level, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&line, " %s=%v", a.Key, a.Value)
		if a.Key == "urn" && !found {
			urn, found = a.Value.String(), true
		}
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line.String())
	if r.Level >= slog.LevelWarn {
		if l.warnings == nil {
			l.warnings = map[string][]string{}
		}
		l.warnings[urn] = append(l.warnings[urn], r.Message)
	}
	return nil
}

// WithAttrs implements slog.Handler; the provider's records carry their attributes
// themselves, so these are dropped.
func (l *Log) WithAttrs([]slog.Attr) slog.Handler { return l }

// WithGroup implements slog.Handler.
func (l *Log) WithGroup(string) slog.Handler { return l }

// Lines returns the lines of the log ("LEVEL message key=value ...", a record with
// line breaks in its message being several) that contain every one of the
// substrings.
func (l *Log) Lines(subs ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, record := range l.lines {
		for _, line := range strings.Split(record, "\n") {
			if line != "" && containsAll(line, subs) {
				out = append(out, line)
			}
		}
	}
	return out
}

// Warnings returns the messages of the warnings (and worse) logged about the
// resource urn, in order, as the engine would show them on the resource.
func (l *Log) Warnings(urn resource.URN) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.warnings[string(urn)]...)
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
