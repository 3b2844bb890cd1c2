package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	rpcplugin "github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
)

type startupFigures struct {
	toSchema     []time.Duration // exec to the first GetSchema answer
	floor        []time.Duration // the same for the framework's baseline plugin
	floorRSS     []int64         // KiB, the baseline's resident set after GetSchema, per run
	schemaRSS    []int64         // KiB, ours after GetSchema, per run
	configure    []time.Duration
	rssConfigure int64 // KiB, after Configure
	hwmConfigure int64 // KiB, peak up to then
	binarySize   int64 // bytes
}

// measureStartup starts the plugin runs times: exec to first GetSchema answer, then
// Configure, then its memory.
func measureStartup(ctx context.Context, bin, floorBin, kubeconfig string, runs int) (startupFigures, error) {
	var f startupFigures
	st, err := os.Stat(bin)
	if err != nil {
		return f, err
	}
	f.binarySize = st.Size()
	// Both binaries are measured from copies written just now, as `pulumi plugin install`
	// writes a plugin it extracts: in 32 KiB writes. The resident set after start-up
	// depends on how the kernel holds the executable in its page cache: a file written
	// or read in large blocks is cached in large pages, which one fault maps whole, and
	// the same binary then starts with up to 8 MiB more (48.5 against 40.3 MiB, measured).
	dir, err := os.MkdirTemp("", "bench-startup-")
	if err != nil {
		return f, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if bin, err = copyExecutable(bin, dir); err != nil {
		return f, err
	}
	if floorBin, err = copyExecutable(floorBin, dir); err != nil {
		return f, err
	}
	args, err := configArgs(map[string]any{"kubeconfig": kubeconfig})
	if err != nil {
		return f, err
	}
	for range runs {
		// The baseline first, then ours, alternately, so both see the same machine.
		d, rss, err := timeToSchema(ctx, floorBin)
		if err != nil {
			return f, fmt.Errorf("baseline: %w", err)
		}
		f.floor, f.floorRSS = append(f.floor, d), append(f.floorRSS, rss)

		start := time.Now()
		p, err := plugin.Launch(bin)
		if err != nil {
			return f, err
		}
		if _, err := p.GetSchema(ctx, &rpc.GetSchemaRequest{}); err != nil {
			_ = p.Close()
			return f, fmt.Errorf("get schema: %w", err)
		}
		f.toSchema = append(f.toSchema, time.Since(start))
		rss, _ = procStatus(p.Cmd.Process.Pid, "VmRSS")
		f.schemaRSS = append(f.schemaRSS, rss)
		start = time.Now()
		if _, err := p.Configure(ctx, &rpc.ConfigureRequest{Args: args, AcceptSecrets: true, AcceptResources: true}); err != nil {
			_ = p.Close()
			return f, fmt.Errorf("configure: %w", err)
		}
		f.configure = append(f.configure, time.Since(start))
		rss, _ = procStatus(p.Cmd.Process.Pid, "VmRSS")
		hwm, _ := procStatus(p.Cmd.Process.Pid, "VmHWM")
		f.rssConfigure, f.hwmConfigure = max(f.rssConfigure, rss), max(f.hwmConfigure, hwm)
		if err := p.Close(); err != nil {
			return f, err
		}
	}
	return f, nil
}

func configArgs(m map[string]any) (*structpb.Struct, error) {
	return rpcplugin.MarshalProperties(resource.NewPropertyMapFromMap(m), rpcplugin.MarshalOptions{KeepSecrets: true})
}

// timeToSchema starts a plugin and times exec to its first GetSchema answer.
func timeToSchema(ctx context.Context, bin string) (time.Duration, int64, error) {
	start := time.Now()
	p, err := plugin.Launch(bin)
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = p.Close() }()
	if _, err := p.GetSchema(ctx, &rpc.GetSchemaRequest{}); err != nil {
		return 0, 0, err
	}
	d := time.Since(start)
	rss, _ := procStatus(p.Cmd.Process.Pid, "VmRSS")
	return d, rss, nil
}

// copyExecutable copies the executable bin into dir under its own name, in 32 KiB
// writes.
func copyExecutable(bin, dir string) (string, error) {
	b, err := os.ReadFile(bin) //nolint:gosec // G304: the plugin binary the bench measures
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, filepath.Base(bin))
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755) //nolint:gosec // G302: an executable
	if err != nil {
		return "", err
	}
	for chunk := range slices.Chunk(b, 32<<10) {
		if _, err := f.Write(chunk); err != nil {
			_ = f.Close()
			return "", err
		}
	}
	return out, f.Close()
}

// buildFloor builds the baseline plugin into dir, static as the provider is built
// (`make provider`).
func buildFloor(ctx context.Context, dir string) (string, error) {
	out := filepath.Join(dir, "pulumi-resource-floor")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out,
		"github.com/endpoints-provider/pulumi-endpoints/tests/cmd/bench/floor")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the baseline plugin: %w\n%s", err, b)
	}
	return out, nil
}
