package kube

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// Render mode: with the renderDirectory setting, the resources write each object as a
// manifest in a directory instead of sending it to an API server. Nothing contacts a
// cluster and no kubeconfig is read, in preview and up alike.
//
//   - File names are <apiVersion>-<kind>-<namespace>-<name>.yaml, '/' in the
//     apiVersion written as '_' (RenderTarget.file), with a name too long for a file
//     name shortened; an EndpointsList writes one file per item.
//   - A manifest is the object the provider would send to the API server, apiVersion
//     and kind included, its keys in alphabetical order (sigs.k8s.io/yaml sorts them),
//     so rendering the same inputs again writes the same bytes; a file whose bytes
//     would not change is not written at all.
//   - The outputs are what is known without a server: the object as written, with
//     the defaults Check fills in (a port's protocol, the namespace), as the cluster
//     path records them, and without what only a server sets (uid, resourceVersion,
//     creationTimestamp, generation). A name the server would generate (an
//     EndpointSlice's metadata.generateName) is chosen by the provider on create, in
//     the server's shape, and kept by updates (it is in the ID).
//   - Diff also compares each file with what the inputs render to: a file that is
//     missing, unreadable or edited to mean something else is an update, so `pulumi
//     up` writes every manifest of the stack even when the program did not change (a
//     fresh checkout, a cleaned directory). An edit of form alone (key order, an empty
//     field spelled out) changes nothing, as it changes nothing for refresh.
//   - Refresh reads the files back: a hand edit shows as drift, a missing file as a
//     deleted object.
//   - A secret input is written in plain text: each write warns, naming the field and
//     the file, and the file is readable by its owner alone.
//
// The target, directory or cluster, is part of the provider's identity (see the
// provider's identity.go): switching replaces the objects, written to the new target
// and removed from the old one.

// namespace is the namespace of objects that name none.
func (t RenderTarget) namespace() string {
	if t.Namespace != "" {
		return t.Namespace
	}
	return validate.DefaultNamespace
}

// maxFileName is the longest file name, in bytes, that common file systems take
// (NAME_MAX on Linux and macOS, 255 UTF-16 units on Windows; names here are ASCII).
const maxFileName = 255

// file is the path of the manifest of the object id of kind k. An object name too
// long for a file name (up to 253 characters, after up to 98 of apiVersion, kind and
// namespace) keeps as much of its start as fits, then '~' (which no object name
// holds) and 16 hexadecimal digits of the SHA-256 of the whole name.
//
// A namespace or name with a path separator (which no object has, but a hand-edited
// state or ID may hold) has it escaped, with '%', so that no ID names a file outside
// the directory.
func (t RenderTarget) file(k kind, id objectID) string {
	prefix := fmt.Sprintf("%s-%s-%s-", strings.ReplaceAll(k.apiVersion, "/", "_"), k.name, fileSafe.Replace(id.namespace))
	const suffix = ".yaml"
	name := fileSafe.Replace(id.name)
	if len(prefix)+len(name)+len(suffix) > maxFileName {
		sum := sha256.Sum256([]byte(name))
		tail := "~" + hex.EncodeToString(sum[:8])
		name = name[:maxFileName-len(prefix)-len(tail)-len(suffix)] + tail
	}
	return filepath.Join(t.Directory, prefix+name+suffix)
}

// fileSafe escapes what would make a name more than one element of a path.
var fileSafe = strings.NewReplacer("%", "%25", "/", "%2F", `\`, "%5C")

// renderObject is the manifest of an object: its YAML, keys in order.
func renderObject(obj *unstructured.Unstructured) ([]byte, error) {
	out, err := yaml.Marshal(obj.Object)
	if err != nil {
		return nil, fmt.Errorf("internal error: rendering %s %s: %w", obj.GetKind(), idOf(obj), err)
	}
	return out, nil
}

// readManifest reads the manifest of id; a missing file is (nil, nil). A file that
// does not hold that object is an error naming the file.
func (t RenderTarget) readManifest(k kind, id objectID) (*unstructured.Unstructured, error) {
	obj, _, err := t.loadManifest(k, id)
	return obj, err
}

// loadManifest reads the manifest of id, its object and its bytes; a missing file is
// (nil, nil, nil). A file that does not hold that object is an error naming the file.
func (t RenderTarget) loadManifest(k kind, id objectID) (*unstructured.Unstructured, []byte, error) {
	path := t.file(k, id)
	obj, data, err := readManifestFile(path)
	if err != nil || obj == nil {
		return nil, nil, err
	}
	if obj.GetKind() != k.name || obj.GetAPIVersion() != k.apiVersion || idOf(obj) != id {
		return nil, nil, fmt.Errorf("the manifest %s holds %s %s %s, not %s %s %s: another object's name renders "+
			"to the same file name; rename one of them", path, obj.GetAPIVersion(), obj.GetKind(), idOf(obj),
			k.apiVersion, k.name, id)
	}
	return obj, data, nil
}

// unparsableError is a manifest that is not a YAML object (a hand edit broke it).
type unparsableError struct{ message string }

func (e *unparsableError) Error() string { return e.message }

// readManifestFile reads and parses the manifest at path; a missing file is (nil, nil,
// nil), a file that does not parse an *unparsableError.
func readManifestFile(path string) (*unstructured.Unstructured, []byte, error) {
	data, err := readManifestBytes(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("reading the manifest %s: %w", path, err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, nil, &unparsableError{fmt.Sprintf("the manifest %s is not valid YAML: %v", path, err)}
	}
	if m == nil {
		return nil, nil, &unparsableError{fmt.Sprintf("the manifest %s is empty", path)}
	}
	return &unstructured.Unstructured{Object: m}, data, nil
}

// readManifestBytes reads the file at path, a manifest of the render directory.
func readManifestBytes(path string) ([]byte, error) {
	return os.ReadFile(path) //nolint:gosec // G304: reading the render directory the user named is the point
}

// writeManifest writes the manifest of obj unless the file holds those bytes already.
// create says the object is new: a file holding another object, or this one, is then
// an error (as the API server answers 409 to a create of an object that exists), so
// two resources never write one file. An update writes over a file that no longer
// parses: it is this object's, broken by a hand edit. private says that obj holds
// secrets: the file is then readable by its owner alone (0600), not by all (0644).
func (t RenderTarget) writeManifest(k kind, obj *unstructured.Unstructured, create, private bool) error {
	id := idOf(obj)
	path := t.file(k, id)
	data, err := renderObject(obj)
	if err != nil {
		return err
	}
	existing, old, err := t.loadManifest(k, id)
	switch {
	case err != nil && !create && errors.As(err, new(*unparsableError)):
		// written over below
	case err != nil:
		return err
	case existing != nil && create:
		return fmt.Errorf("%s %s already exists: the manifest %s is there; remove it, or import it with "+
			"`pulumi import %s <name> %s`", k.name, id, path, k.token, id)
	case existing != nil && bytes.Equal(old, data):
		return nil
	}
	mode := os.FileMode(0o644)
	if private {
		mode = 0o600
	}
	return writeFileAtomically(t.Directory, path, data, mode)
}

// writeFileAtomically writes data to path in dir (created if missing), with the
// permissions mode, through a temporary file renamed over it, so that a reader sees the
// old bytes or the new.
func writeFileAtomically(dir, path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(dir, 0o755); err != nil { //nolint:gosec // G301: the manifests are for other tools to read
		return fmt.Errorf("creating the render directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".render-*")
	if err != nil {
		return fmt.Errorf("writing the manifest %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) //nolint:errcheck // gone after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close() //nolint:errcheck,gosec // the write failed already
		return fmt.Errorf("writing the manifest %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the manifest %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return fmt.Errorf("writing the manifest %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing the manifest %s: %w", path, err)
	}
	return nil
}

// removeManifest removes the manifest of id; one that is gone already is no error.
func (t RenderTarget) removeManifest(k kind, id objectID) error {
	err := os.Remove(t.file(k, id))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the manifest of %s %s: %w", k.name, id, err)
	}
	return nil
}

// stale tells whether the manifest of obj is missing, unreadable or means something
// else than obj, and logs which, so that Diff can have `up` write it again. A file
// that differs only in form (its keys in another order, an empty field spelled out, a
// comment) still holds the object: it is left as it is, as refresh reads it.
func (t RenderTarget) stale(ctx context.Context, k kind, obj *unstructured.Unstructured) bool {
	path := t.file(k, idOf(obj))
	have, _, err := readManifestFile(path)
	switch {
	case err != nil:
		secret.Logger(ctx).Infof("%v: it is written again", err)
		return true
	case have == nil:
		secret.Logger(ctx).Infof("the manifest %s is missing: it is written again", path)
		return true
	case sameObject(k, have, obj):
		return false
	}
	secret.Logger(ctx).Infof("the manifest %s differs from what the program renders: it is written again", path)
	return true
}

// sameObject tells whether two manifests of kind k are the same once canonical. Both
// name their object, so a generateName is inert in either and is left out.
func sameObject(k kind, a, b *unstructured.Unstructured) bool {
	named := func(obj *unstructured.Unstructured) map[string]any {
		obj = obj.DeepCopy()
		if obj.GetName() != "" {
			obj.SetGenerateName("")
		}
		return obj.Object
	}
	return k.form.SameObject(named(a), named(b))
}

// warnSecrets warns that the secret values of an object's inputs, at the paths fields
// (see intent), are written in plain text to the manifest path, naming each field.
func warnSecrets(ctx context.Context, fields []string, path string) {
	if len(fields) == 0 {
		return
	}
	secret.Logger(ctx).Warningf("the secret value of %s is written in plain text to the manifest %s: "+
		"anyone who can read the file can read it", strings.Join(fields, ", "), path)
}
