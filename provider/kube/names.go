package kube

import (
	"context"
	"fmt"
	"strings"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// Autonaming is what the engine asks of the autonaming of one Check (the stack's
// autonaming configuration): pulumi-go-provider does not pass it on, so the provider's
// gRPC layer reads it from the request and puts it in Check's context
// ([WithAutonaming]). Without it, Check autonames as the provider does by default.
type Autonaming struct {
	Mode AutonamingMode
	// ProposedName is the name the engine proposes (Propose) or requires (Enforce).
	ProposedName string
}

// AutonamingMode is how the engine asks Check to use its proposed name.
type AutonamingMode int

const (
	// AutonamePropose takes the proposed name, unless the object already has a name
	// that a change does not replace.
	AutonamePropose AutonamingMode = iota
	// AutonameEnforce takes the proposed name, always.
	AutonameEnforce
	// AutonameDisable gives no autoname: the program must name the object.
	AutonameDisable
)

type autonamingKey struct{}

// WithAutonaming records a Check request's autonaming options (nil: none given) for
// Check to read.
func WithAutonaming(ctx context.Context, autonaming *Autonaming) context.Context {
	return context.WithValue(ctx, autonamingKey{}, autonaming)
}

func autonamingFrom(ctx context.Context) *Autonaming {
	a, _ := ctx.Value(autonamingKey{}).(*Autonaming)
	return a
}

// autonameSuffix is the length of the suffix of autonames.
const autonameSuffix = 8

// autoname decides metadata.name for an object whose program gave neither name nor
// generateName. It keeps the previous autoname unless the change replaces the object
// (a replacement is created before the old object is deleted, so it needs a new name).
// It returns a failure reason when the engine disabled autonaming. A name the engine
// proposes (the stack's autonaming configuration) is used as it is, and Check
// validates it like any other; otherwise the name is validate.NamePrefix of the
// resource name, '-' and 8 hex characters drawn from the URN and the name replaced
// (see derivedName), not from the engine's random seed, which is new on every run:
// the run after an interrupted create picks the same name and finds the object.
func autoname(ctx context.Context, urn resource.URN, oldName string, replacing bool) (string, string) {
	if a := autonamingFrom(ctx); a != nil {
		switch a.Mode {
		case AutonameDisable:
			return "", "metadata.name is required: autonaming is disabled for this stack"
		case AutonameEnforce:
			return a.ProposedName, ""
		case AutonamePropose:
			if a.ProposedName != "" && (oldName == "" || replacing) {
				return a.ProposedName, ""
			}
		}
	}
	if oldName != "" && !replacing {
		return oldName, ""
	}
	prefix := validate.NamePrefix(urn.Name(), validate.MaxObjectNameLength-autonameSuffix-1)
	if prefix == "" {
		prefix = strings.ToLower(urn.Type().Name().String())
	}
	name, err := derivedName(func(seed []byte) (string, error) {
		return resource.NewUniqueName(seed, prefix+"-", autonameSuffix, validate.MaxObjectNameLength, nil)
	}, urn, oldName, func(name string) bool { return name == oldName })
	if err != nil {
		return "", fmt.Sprintf("internal error: naming the resource %q: %v; set metadata.name", urn.Name(), err)
	}
	return name, ""
}

// derivedNameTries bounds how many names derivedName draws before it gives up.
const derivedNameTries = 64

// derivedName draws a name with draw from seeds that depend on urn and salt alone, so
// that the same resource gets the same name on every run, and different resources
// (another stack's included: the URN names the stack) get different ones. It returns
// the first name drawn that taken does not hold (the name replaced, other items').
func derivedName(draw func(seed []byte) (string, error), urn resource.URN, salt string, taken func(string) bool,
) (string, error) {
	for try := range derivedNameTries {
		name, err := draw(fmt.Appendf(nil, "%s\x00%s\x00%d", urn, salt, try))
		if err != nil || !taken(name) {
			return name, err
		}
	}
	return "", fmt.Errorf("%d names drawn for %s were all taken", derivedNameTries, urn)
}

// namespaceToSet is what Check sets in object metadata meta: its namespace, when it
// names none (or an empty one).
func namespaceToSet(meta map[string]any, namespace string) map[string]string {
	if v := meta["namespace"]; v == nil || v == "" {
		return map[string]string{"namespace": namespace}
	}
	return map[string]string{}
}

// knownMetadata returns an object's metadata when the program left it out or gave a
// known map; ok is false when it is not known yet (preview) or not a map (which
// validation reports), and then nothing is assigned.
func knownMetadata(obj map[string]any) (map[string]any, bool) {
	v, ok := obj["metadata"]
	switch {
	case !ok || v == nil:
		return map[string]any{}, true
	case mapOf(v) != nil:
		return mapOf(v), true
	}
	return nil, false
}

// assignMetadata completes the metadata of an object of kind k in Check, and returns
// the keys to set in it (see withMetadata): the namespace defaults to the provider's,
// and the name is generated unless the program set name or generateName. olds are the
// previous inputs (empty on create); an autoname is kept unless the change replaces
// the object (see replaces). replaced, when olds are empty, is the name of the object
// the state records for the resource (see stateObjects): the engine checks a
// replacement again without the previous inputs, and the replacement then needs a
// name of its own. autonamed says whether the name was generated.
func assignMetadata(ctx context.Context, k kind, urn resource.URN, news, olds decoded, namespace, replaced string,
) (set map[string]string, autonamed bool, failures []p.CheckFailure) {
	meta, ok := knownMetadata(news.fields)
	if !ok {
		return nil, false, nil
	}
	set = namespaceToSet(meta, namespace)
	_, hasName := meta["name"]
	_, hasGenerateName := meta["generateName"]
	if hasName || hasGenerateName {
		return set, false, nil
	}
	oldMeta := metadataOf(olds.fields)
	oldName, _ := stringOf(oldMeta["name"])
	if _, oldGenerated := oldMeta["generateName"]; oldGenerated {
		oldName = ""
	}
	// Would the object be replaced if it kept its name?
	keeping := withMeta(news.fields, "name", oldName)
	for key, v := range set {
		keeping = withMeta(keeping, key, v)
	}
	replacing := oldName != "" && replaces(k, olds.fields, keeping)
	if oldName == "" && replaced != "" {
		oldName, replacing = replaced, true
	}
	name, reason := autoname(ctx, urn, oldName, replacing)
	if reason != "" {
		return set, false, []p.CheckFailure{{Property: "metadata.name", Reason: reason}}
	}
	set["name"] = name
	return set, true, nil
}

// generatedNameChars are the characters of the random part of the names the API server
// generates (no vowels, no look-alikes).
var generatedNameChars = []rune("bcdfghjklmnpqrstvwxz2456789")

// generatedItemName returns the name the provider gives an EndpointsList item whose
// metadata.generateName is prefix: the prefix, cut only where the name would be too
// long for the API server (validate.GeneratedNamePrefix), then random characters drawn
// from seed, as the server draws them.
func generatedItemName(seed []byte, prefix string) (string, error) {
	return resource.NewUniqueName(seed, validate.GeneratedNamePrefix(prefix, validate.MaxObjectNameLength),
		validate.GeneratedSuffixLength, 0, generatedNameChars)
}
