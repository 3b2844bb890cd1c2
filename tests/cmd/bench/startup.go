package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	rpcplugin "github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
)

type startupFigures struct {
	toSchema  []time.Duration // exec to the first GetSchema answer
	floor     []time.Duration // the same for the framework's baseline plugin
	floorRSS  []int64         // KiB, the baseline's resident set after GetSchema, per run
	schemaRSS []int64         // KiB, ours after GetSchema, per run
	// without and withoutRSS are the same for our plugin built without the cloud
	// credential libraries (the endpoints_no_cloud_credentials tag), in the same runs,
	// and withoutSize is that binary's size in bytes.
	without      []time.Duration
	withoutRSS   []int64
	withoutSize  int64
	configure    []time.Duration
	rssConfigure int64 // KiB, after Configure
	hwmConfigure int64 // KiB, peak up to then
	binarySize   int64 // bytes
}

// startupBinaries are the plugins the start-up section starts: ours, ours built
// without the AWS and Azure credential libraries, and the framework's baseline.
type startupBinaries struct {
	ours, without, floor string
}

// measureStartup starts the plugins runs times each: exec to first GetSchema answer and
// the memory then; ours also Configure, then its memory.
func measureStartup(ctx context.Context, bins startupBinaries, kubeconfig string, runs int) (startupFigures, error) {
	var f startupFigures
	var err error
	if f.binarySize, err = fileSize(bins.ours); err != nil {
		return f, err
	}
	if f.withoutSize, err = fileSize(bins.without); err != nil {
		return f, err
	}
	// The binaries are measured from copies written just now, as `pulumi plugin install`
	// writes a plugin it extracts: in 32 KiB writes. The resident set after start-up
	// depends on how the kernel holds the executable in its page cache: a file written
	// or read in large blocks is cached in large pages, which one fault maps whole, and
	// the same binary then starts with up to 8 MiB more (48.5 against 40.3 MiB, measured).
	dir, err := os.MkdirTemp("", "bench-startup-")
	if err != nil {
		return f, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	// Each in a directory of its own: ours and the build without the libraries have
	// the same name.
	for i, bin := range []*string{&bins.ours, &bins.without, &bins.floor} {
		sub := filepath.Join(dir, strconv.Itoa(i))
		if err := os.Mkdir(sub, 0o700); err != nil {
			return f, err
		}
		if *bin, err = copyExecutable(*bin, sub); err != nil {
			return f, err
		}
	}
	args, err := configArgs(map[string]any{"kubeconfig": kubeconfig})
	if err != nil {
		return f, err
	}
	for i := range runs {
		// The three in turn, each run beginning with the next of them, so that all see
		// the same machine and none always starts right after the same other.
		for k := range 3 {
			switch (i + k) % 3 {
			case 0:
				d, rss, err := timeToSchema(ctx, bins.floor)
				if err != nil {
					return f, fmt.Errorf("baseline: %w", err)
				}
				f.floor, f.floorRSS = append(f.floor, d), append(f.floorRSS, rss)
			case 1:
				if err := f.startOurs(ctx, bins.ours, args); err != nil {
					return f, err
				}
			case 2:
				d, rss, err := timeToSchema(ctx, bins.without)
				if err != nil {
					return f, fmt.Errorf("built without the AWS and Azure credential libraries: %w", err)
				}
				f.without, f.withoutRSS = append(f.without, d), append(f.withoutRSS, rss)
			}
		}
	}
	return f, nil
}

// startOurs starts our plugin once: exec to the first GetSchema answer, the memory
// then, Configure with args, and the memory after it and at its peak.
func (f *startupFigures) startOurs(ctx context.Context, bin string, args *structpb.Struct) error {
	start := time.Now()
	p, err := plugin.Launch(bin)
	if err != nil {
		return err
	}
	if _, err := p.GetSchema(ctx, &rpc.GetSchemaRequest{}); err != nil {
		_ = p.Close()
		return fmt.Errorf("get schema: %w", err)
	}
	f.toSchema = append(f.toSchema, time.Since(start))
	rss, _ := procStatus(p.Cmd.Process.Pid, "VmRSS")
	f.schemaRSS = append(f.schemaRSS, rss)
	start = time.Now()
	if _, err := p.Configure(ctx, &rpc.ConfigureRequest{Args: args, AcceptSecrets: true, AcceptResources: true}); err != nil {
		_ = p.Close()
		return fmt.Errorf("configure: %w", err)
	}
	f.configure = append(f.configure, time.Since(start))
	rss, _ = procStatus(p.Cmd.Process.Pid, "VmRSS")
	hwm, _ := procStatus(p.Cmd.Process.Pid, "VmHWM")
	f.rssConfigure, f.hwmConfigure = max(f.rssConfigure, rss), max(f.hwmConfigure, hwm)
	return p.Close()
}

func fileSize(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
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
