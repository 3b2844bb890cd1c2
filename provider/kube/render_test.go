package kube

import (
	"path/filepath"
	"strings"
	"testing"
)

// A manifest's file name is the documented one while it fits in 255 bytes; a longer
// object name keeps its start and ends in '~' and a digest of the whole name, so
// names that differ only at their end still get different files.
func TestRenderFileNames(t *testing.T) {
	t.Parallel()
	target := RenderTarget{Directory: "out"}
	ns := strings.Repeat("n", 63)
	short := target.file(endpointSliceKind, objectID{namespace: "web", name: "api"})
	if want := filepath.Join("out", "discovery.k8s.io_v1-EndpointSlice-web-api.yaml"); short != want {
		t.Errorf("file = %q, want %q", short, want)
	}
	// The longest name that fits as it is.
	fits := strings.Repeat("a", maxFileName-len("v1-Endpoints-"+ns+"-.yaml"))
	if got, want := target.file(endpointsKind, objectID{ns, fits}), filepath.Join("out", "v1-Endpoints-"+ns+"-"+fits+".yaml"); got != want {
		t.Errorf("file = %q, want %q", got, want)
	}
	long := strings.Repeat("b.", 126) + "x"
	other := strings.Repeat("b.", 126) + "y"
	seen := map[string]string{}
	for _, k := range []kind{endpointSliceKind, endpointsKind} {
		for _, name := range []string{fits + "a", long, other} {
			path := target.file(k, objectID{ns, name})
			base := filepath.Base(path)
			if len(base) > maxFileName {
				t.Errorf("file name for %s %s is %d bytes long, over %d", k.name, name, len(base), maxFileName)
			}
			if !strings.Contains(base, "~") || !strings.HasPrefix(base, strings.ReplaceAll(k.apiVersion, "/", "_")+"-"+k.name+"-"+ns+"-"+name[:20]) {
				t.Errorf("file name for a long name %s: %q, want the start of the name, '~' and a digest", name, base)
			}
			if prev, dup := seen[path]; dup {
				t.Errorf("%s and %s share the file %s", prev, name, path)
			}
			seen[path] = name
		}
	}
}

// An ID or a state with a path in its namespace or name (a hand-edited checkpoint)
// names a file in the render directory all the same: Read, Update and Delete never
// reach a file outside it.
func TestRenderFileNamesStayInTheDirectory(t *testing.T) {
	t.Parallel()
	target := RenderTarget{Directory: filepath.Join("out", "manifests")}
	seen := map[string]objectID{}
	for _, id := range []objectID{
		{namespace: "default", name: "../../../../tmp/x"},
		{namespace: "default", name: `..\..\..\x`},
		{namespace: "..", name: "../x"},
		{namespace: "default", name: "..%2F..%2Fx"},
		{namespace: "default", name: "..%2F..%2Fx/"},
	} {
		path := target.file(endpointSliceKind, id)
		if filepath.Dir(path) != target.Directory || strings.ContainsAny(filepath.Base(path), `/\`) {
			t.Errorf("the file of %s is %q, outside %s", id, path, target.Directory)
		}
		if prev, dup := seen[path]; dup {
			t.Errorf("%s and %s share the file %s", prev, id, path)
		}
		seen[path] = id
	}
}
