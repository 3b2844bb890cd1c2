package secret

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	p "github.com/pulumi/pulumi-go-provider"
	netutils "k8s.io/utils/net"
)

// Text that leaves the plugin: the secret strings of the request being served, carried
// by its context (With), said as Shown in every log line (Logger), error (Error) and
// warning.

type contextKey struct{}

// shortest is the length below which a secret string is redacted only where it stands
// alone (not within a longer word or number): a one-letter label value must not blank
// out every "a" of a message.
const shortest = 4

// With is ctx carrying the secret strings values as well as those it carries already.
func With(ctx context.Context, values ...string) context.Context {
	if len(values) == 0 {
		return ctx
	}
	set := map[string]bool{}
	for _, v := range carried(ctx) {
		set[v] = true
	}
	for _, v := range values {
		for _, form := range forms(v) {
			set[form] = true
		}
	}
	all := keys(set)
	// The longest first, so that a secret within another is not redacted alone first.
	slices.SortFunc(all, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return context.WithValue(ctx, contextKey{}, all)
}

// forms are the ways a message may spell the secret string v: as it is, quoted (Go's
// %q, JSON), and for an IP address in the canonical form a server's warning suggests
// instead ("2001:db8::1" for "2001:db8:0:0::1", "10.1.2.3" for "010.1.2.3").
func forms(v string) []string {
	if v == "" {
		return nil
	}
	out := []string{v}
	if q := strconv.Quote(v); q[1:len(q)-1] != v {
		out = append(out, q[1:len(q)-1])
	}
	if j, err := json.Marshal(v); err == nil && string(j[1:len(j)-1]) != v {
		out = append(out, string(j[1:len(j)-1]))
	}
	if ip := netutils.ParseIPSloppy(v); ip != nil && ip.String() != v {
		out = append(out, ip.String())
	}
	return out
}

// carried are the secret strings ctx carries, the longest first.
func carried(ctx context.Context) []string {
	v, _ := ctx.Value(contextKey{}).([]string)
	return v
}

// Text is text with every secret string ctx carries said as Shown.
func Text(ctx context.Context, text string) string {
	for _, v := range carried(ctx) {
		text = replace(text, v)
	}
	return text
}

// replace is text with v said as Shown: everywhere, or, for a v shorter than
// shortest, where it stands alone.
func replace(text, v string) string {
	if !strings.Contains(text, v) {
		return text
	}
	if len(v) >= shortest {
		return strings.ReplaceAll(text, v, Shown)
	}
	var b strings.Builder
	for {
		i := strings.Index(text, v)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		end := i + len(v)
		if (i == 0 || !word(text[i-1])) && (end == len(text) || !word(text[end])) {
			b.WriteString(text[:i])
			b.WriteString(Shown)
		} else {
			b.WriteString(text[:end])
		}
		text = text[end:]
	}
}

// word tells whether c is part of a word or a number.
func word(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// redacted is an error whose message says Shown for the secret strings of err's.
type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }

// Unwrap keeps errors.Is and errors.As working on the error redacted; its message
// is redacted's.
func (e *redacted) Unwrap() error { return e.err }

// Error is err with its message redacted (see Text); err itself when it holds no
// secret string.
func Error(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	msg := Text(ctx, err.Error())
	if msg == err.Error() {
		return err
	}
	return &redacted{msg: msg, err: err}
}

// Texts is Text of each of texts, in place.
func Texts(ctx context.Context, texts []string) {
	for i, t := range texts {
		texts[i] = Text(ctx, t)
	}
}

// Log is the provider's logger (pulumi-go-provider's, which the engine shows) with
// every message redacted (see Text). Every log line of the provider goes through it.
type Log struct {
	ctx context.Context
	l   p.Logger
}

// Logger is the logger of ctx, redacting the secret strings ctx carries.
func Logger(ctx context.Context) Log { return Log{ctx: ctx, l: p.GetLogger(ctx)} }

// Debug logs msg, redacted, at debug level.
func (l Log) Debug(msg string) { l.l.Debug(Text(l.ctx, msg)) }

// Debugf logs a formatted message, redacted, at debug level.
func (l Log) Debugf(format string, a ...any) { l.Debug(fmt.Sprintf(format, a...)) }

// Info logs msg, redacted, at info level.
func (l Log) Info(msg string) { l.l.Info(Text(l.ctx, msg)) }

// Infof logs a formatted message, redacted, at info level.
func (l Log) Infof(format string, a ...any) { l.Info(fmt.Sprintf(format, a...)) }

// Warning logs msg, redacted, as a warning.
func (l Log) Warning(msg string) { l.l.Warning(Text(l.ctx, msg)) }

// Warningf logs a formatted message, redacted, as a warning.
func (l Log) Warningf(format string, a ...any) { l.Warning(fmt.Sprintf(format, a...)) }

// Error logs msg, redacted, as an error.
func (l Log) Error(msg string) { l.l.Error(Text(l.ctx, msg)) }

// Errorf logs a formatted message, redacted, as an error.
func (l Log) Errorf(format string, a ...any) { l.Error(fmt.Sprintf(format, a...)) }
