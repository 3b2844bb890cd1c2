package main_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/emptypb"

	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
)

// The Makefile stamps the version into the binary; the binary reports it on the command
// line, to the engine (GetPluginInfo) and in the schema it serves. A wrong -X symbol in
// the Makefile is silently ignored by the linker, and this test is what catches it.
func TestBuiltBinaryReportsStampedVersion(t *testing.T) {
	t.Parallel()
	const version = "9.8.7-test.1"
	dir := t.TempDir()
	build := exec.CommandContext(t.Context(), "make", "--no-print-directory", "-C", "../..", "provider",
		"BIN_DIR="+dir, "VERSION="+version)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make provider: %v\n%s", err, out)
	}
	bin := filepath.Join(dir, "pulumi-resource-endpoints")

	out, err := exec.CommandContext(t.Context(), bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	if got := strings.TrimSpace(string(out)); got != version {
		t.Errorf("--version printed %q, want %q", got, version)
	}

	p := plugin.Start(t, bin)
	ctx := plugin.Context(t)
	info, err := p.GetPluginInfo(ctx, &emptypb.Empty{})
	if err != nil {
		t.Fatalf("GetPluginInfo: %v", err)
	}
	if info.GetVersion() != version {
		t.Errorf("GetPluginInfo version = %q, want %q", info.GetVersion(), version)
	}
	schema, err := p.GetSchema(ctx, &rpc.GetSchemaRequest{})
	if err != nil {
		t.Fatalf("GetSchema: %v", err)
	}
	var doc struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal([]byte(schema.GetSchema()), &doc); err != nil {
		t.Fatalf("schema does not decode: %v", err)
	}
	if doc.Version != version {
		t.Errorf("schema version = %q, want %q", doc.Version, version)
	}
}
