// Command go runs program as an Automation API inline program: the Go SDK itself
// serves the program to the pulumi CLI, so no Go language host is needed.
//
//	go run . <preview|up|refresh|destroy> [stack]
//
// It uses Pulumi.yaml and Pulumi.<stack>.yaml of the current directory (the stack,
// default "dev", is created if missing), shows the engine's progress on stderr and
// prints one JSON line on stdout:
// {"changes": {<op>: <count>}, "outputs": {...}, "warnings": [...]}, where warnings
// are the messages of the engine's warning diagnostics (the provider's among them;
// the progress on stderr, shown as a diff, does not list them).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
)

type result struct {
	Changes  map[string]int `json:"changes"`
	Outputs  map[string]any `json:"outputs,omitempty"`
	Warnings []string       `json:"warnings"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	res, err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) (*result, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("usage: go run -tags runner . <preview|up|refresh|destroy> [stack]")
	}
	stackName := "dev"
	if len(args) == 2 {
		stackName = args[1]
	}
	workDir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	stack, err := auto.UpsertStackInlineSource(ctx, stackName, "endpoints-go", program, auto.WorkDir(workDir))
	if err != nil {
		return nil, err
	}
	engineEvents, warnings := collectWarnings()
	switch args[0] {
	case "preview":
		r, err := stack.Preview(ctx, optpreview.Diff(), optpreview.ProgressStreams(os.Stderr), optpreview.EventStreams(engineEvents))
		if err != nil {
			return nil, err
		}
		changes := map[string]int{}
		for op, n := range r.ChangeSummary {
			changes[string(op)] = n
		}
		return &result{Changes: changes, Warnings: warnings()}, nil
	case "up":
		r, err := stack.Up(ctx, optup.Diff(), optup.ProgressStreams(os.Stderr), optup.EventStreams(engineEvents))
		if err != nil {
			return nil, err
		}
		outputs := map[string]any{}
		for k, v := range r.Outputs {
			outputs[k] = v.Value
		}
		return &result{Changes: changes(r.Summary), Outputs: outputs, Warnings: warnings()}, nil
	case "refresh":
		r, err := stack.Refresh(ctx, optrefresh.ProgressStreams(os.Stderr), optrefresh.EventStreams(engineEvents))
		if err != nil {
			return nil, err
		}
		return &result{Changes: changes(r.Summary), Warnings: warnings()}, nil
	case "destroy":
		r, err := stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stderr), optdestroy.EventStreams(engineEvents))
		if err != nil {
			return nil, err
		}
		return &result{Changes: changes(r.Summary), Warnings: warnings()}, nil
	}
	return nil, fmt.Errorf("unknown operation %q: want preview, up, refresh or destroy", args[0])
}

// collectWarnings returns a channel for the engine's events and a function that,
// once the operation has closed the channel, returns the messages of its warning
// diagnostics in order.
func collectWarnings() (chan<- events.EngineEvent, func() []string) {
	ch := make(chan events.EngineEvent)
	done := make(chan []string, 1)
	go func() {
		msgs := []string{}
		for e := range ch {
			if d := e.DiagnosticEvent; d != nil && d.Severity == "warning" {
				msgs = append(msgs, strings.TrimSpace(d.Message))
			}
		}
		done <- msgs
	}()
	return ch, func() []string { return <-done }
}

func changes(s auto.UpdateSummary) map[string]int {
	if s.ResourceChanges == nil {
		return map[string]int{}
	}
	return *s.ResourceChanges
}
