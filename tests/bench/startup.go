package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	rpcplugin "github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/endpoints-provider/pulumi-endpoints/tests/plugin"
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

// buildFloor builds the baseline plugin into dir.
func buildFloor(ctx context.Context, dir string) (string, error) {
	out := filepath.Join(dir, "pulumi-resource-floor")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out,
		"github.com/endpoints-provider/pulumi-endpoints/tests/bench/floor")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the baseline plugin: %w\n%s", err, b)
	}
	return out, nil
}
