// Command bench measures the provider (start-up, footprint, Check, per-operation
// overhead against client-go, lookup overhead against plain HTTP, and scale through
// the real engine) and writes the figures, with the machine, versions and date, to a
// Markdown report. `make bench` runs it on a local control plane.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.out, "out", "BENCHMARKS.md", "the report to write")
	flag.IntVar(&cfg.runs, "runs", 5, "runs of each timed scenario (medians are reported)")
	flag.StringVar(&cfg.version, "version", "", "the provider version, for the report")
	flag.StringVar(&cfg.tools, "tools", "", "the tools' versions, for the report")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

type config struct {
	out     string
	runs    int
	version string
	tools   string
}
