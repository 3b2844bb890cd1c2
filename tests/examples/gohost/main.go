// Command gohost runs one pulumi CLI operation on the Go program of the current
// directory as the Go language host would, for a machine without that host: it builds
// the program with `go build`, serves the language runtime interface on 127.0.0.1, and
// runs the CLI with --client=<address>, as the Go Automation API does for an inline
// program. The engine's Run starts the built program with the environment pulumi.Run
// reads (PULUMI_MONITOR, PULUMI_ENGINE, PULUMI_PROJECT, PULUMI_STACK, PULUMI_CONFIG, ...),
// so the program that runs is the unmodified main package of the directory.
//
//	gohost <pulumi CLI> <up|preview|refresh|destroy> [flags]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: gohost <pulumi CLI> <operation> [flags]")
		os.Exit(2)
	}
	code, err := run(os.Args[1], os.Args[2:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "gohost: %v\n", err)
	}
	os.Exit(code)
}

// run builds the program, serves it and runs the CLI; it returns the CLI's exit code.
func run(cli string, args []string) (int, error) {
	tmp, err := os.MkdirTemp("", "gohost-")
	if err != nil {
		return 1, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	program := filepath.Join(tmp, "program")
	build := exec.Command("go", "build", "-o", program, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return 1, fmt.Errorf("go build of the program in the current directory: %w", err)
	}

	cancel := make(chan bool)
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: cancel,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, &host{program: program})
			return nil
		},
	})
	if err != nil {
		return 1, err
	}
	defer func() {
		close(cancel)
		<-handle.Done
	}()

	cmd := exec.Command(cli, append(args, "--client=127.0.0.1:"+strconv.Itoa(handle.Port))...) //nolint:gosec // the CLI the caller names
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
			return exit.ExitCode(), nil
		}
		return 1, err
	}
	return 0, nil
}

// host is the language runtime of one built program.
type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	program string
}

// Run starts the program with the deployment's settings in its environment and
// waits for it; a program that fails reports its error.
func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	config, err := json.Marshal(req.GetConfig())
	if err != nil {
		return nil, err
	}
	secretKeys, err := json.Marshal(req.GetConfigSecretKeys())
	if err != nil {
		return nil, err
	}
	var engine string
	if len(req.GetArgs()) > 0 {
		engine = req.GetArgs()[0]
	}
	root := req.GetInfo().GetRootDirectory()
	if root == "" {
		if root, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	cmd := exec.CommandContext(ctx, h.program) //nolint:gosec // the program built above
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.Env = append(os.Environ(),
		pulumi.EnvMonitor+"="+req.GetMonitorAddress(),
		pulumi.EnvEngine+"="+engine,
		pulumi.EnvProject+"="+req.GetProject(),
		pulumi.EnvStack+"="+req.GetStack(),
		pulumi.EnvOrganization+"="+req.GetOrganization(),
		pulumi.EnvPulumiRootDirectory+"="+root,
		pulumi.EnvConfig+"="+string(config),
		pulumi.EnvConfigSecretKeys+"="+string(secretKeys),
		pulumi.EnvDryRun+"="+strconv.FormatBool(req.GetDryRun()),
		pulumi.EnvParallel+"="+strconv.Itoa(int(req.GetParallel())),
	)
	if err := cmd.Run(); err != nil {
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("the Go program %s: %v", h.program, err)}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}

// GetRequiredPlugins names none: the engine installs the plugin a resource asks for,
// with the version and download URL the SDK sends, when it is first used.
func (h *host) GetRequiredPlugins(context.Context, *pulumirpc.GetRequiredPluginsRequest) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: "1.0.0"}, nil
}

func (h *host) InstallDependencies(*pulumirpc.InstallDependenciesRequest, pulumirpc.LanguageRuntime_InstallDependenciesServer) error {
	return nil
}
