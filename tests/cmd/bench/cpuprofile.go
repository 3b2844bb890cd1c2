package main

import (
	"cmp"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/endpoints-provider/pulumi-endpoints/provider"
)

// cpuProfileEnv names the file the plugin writes its CPU profile to when it stops.
const cpuProfileEnv = provider.CPUProfileEnv

// profileAreas group a profile's functions by what they do, by the prefix of their
// names; the first match wins, and a function matching none is "other".
var profileAreas = []struct {
	area     string
	prefixes []string
}{
	{"the provider's own code", []string{"github.com/endpoints-provider/"}},
	{"gRPC and protobuf", []string{"google.golang.org/grpc", "google.golang.org/protobuf", "github.com/golang/protobuf"}},
	{"Pulumi's plugin libraries", []string{"github.com/pulumi/"}},
	{"JSON and Kubernetes objects", []string{"encoding/json", "sigs.k8s.io/", "k8s.io/apimachinery", "k8s.io/api/"}},
	{"the HTTP client and its connections", []string{"k8s.io/client-go", "net/", "net.", "golang.org/x/net", "crypto/", "vendor/golang.org/x/net"}},
	{"garbage collection", []string{"runtime.gc", "runtime.scanobject", "runtime.markBits", "runtime.greyobject", "runtime.findObject",
		"runtime.scanblock", "runtime.(*gcWork)", "runtime.(*gcBits)", "runtime.sweepone", "runtime.bgsweep", "runtime.(*sweepLocked)",
		"runtime.(*mspan)", "runtime.wbBuf", "runtime.bulkBarrier", "runtime.markroot", "runtime.typePointers", "runtime.(*typePointers)"}},
	{"allocation and copying", []string{"runtime.mallocgc", "runtime.memclr", "runtime.memmove", "runtime.(*mcache)", "runtime.(*mheap)",
		"runtime.(*mcentral)", "runtime.nextFreeFast", "runtime.newobject", "runtime.makeslice", "runtime.growslice", "runtime.heapSetType",
		"runtime.mapassign", "runtime.mapaccess", "runtime.concatstring", "runtime.slicebytetostring", "runtime.rawstring"}},
	{"system calls and the scheduler", []string{"runtime.", "runtime/", "syscall.", "internal/", "sync.", "sync/"}},
	{"the Go standard library (I/O, reflection, formatting)", []string{"bufio.", "bytes.", "io.", "fmt.", "reflect.", "strconv.",
		"strings.", "sort.", "slices.", "maps.", "unicode", "time.", "os.", "context.", "encoding/", "compress/", "math"}},
}

// profileArea is the area of a function of the profile.
func profileArea(function string) string {
	for _, a := range profileAreas {
		for _, p := range a.prefixes {
			if strings.HasPrefix(function, p) {
				return a.area
			}
		}
	}
	return "other"
}

// summarizeProfile says where a CPU profile's samples went: its total and the
// largest areas' shares of it, from `go tool pprof -top`.
func summarizeProfile(ctx context.Context, path string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "tool", "pprof", "-top", "-nodecount=100000", path).Output() //nolint:gosec // the bench's own profile
	if err != nil {
		return "", fmt.Errorf("go tool pprof %s: %w", path, err)
	}
	return summarizeTop(string(out))
}

// summarizeTop reads `go tool pprof -top` output: the total of its samples and the
// flat share of each area, the four largest.
func summarizeTop(top string) (string, error) {
	total, shares := "", map[string]float64{}
	for _, line := range strings.Split(top, "\n") {
		if _, after, ok := strings.Cut(line, "Total samples = "); ok {
			total = strings.Fields(after)[0]
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 6 || !strings.HasSuffix(fields[1], "%") {
			continue
		}
		share, err := strconv.ParseFloat(strings.TrimSuffix(fields[1], "%"), 64)
		if err != nil {
			continue
		}
		shares[profileArea(strings.Join(fields[5:], " "))] += share
	}
	if total == "" || len(shares) == 0 {
		return "", fmt.Errorf("no samples in the profile")
	}
	areas := make([]string, 0, len(shares))
	for a := range shares {
		areas = append(areas, a)
	}
	slices.SortFunc(areas, func(a, b string) int {
		if c := cmp.Compare(shares[b], shares[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, 4)
	for _, a := range areas[:min(4, len(areas))] {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", a, shares[a]))
	}
	return fmt.Sprintf("%s of samples, of which %s", total, strings.Join(parts, ", ")), nil
}
