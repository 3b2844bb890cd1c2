package kube

import (
	"context"
	"fmt"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Autonaming as the engine asks for it. pulumi-go-provider does not pass the Check
// request's random seed and autonaming options on, so the provider's gRPC layer puts
// them in the context (WithCheckOptions) and Check reads them from there.

type checkOptionsKey struct{}

type checkOptions struct {
	seed       []byte
	autonaming *rpc.CheckRequest_AutonamingOptions
}

// WithCheckOptions records a Check request's random seed and autonaming options.
func WithCheckOptions(ctx context.Context, seed []byte, autonaming *rpc.CheckRequest_AutonamingOptions) context.Context {
	return context.WithValue(ctx, checkOptionsKey{}, checkOptions{seed: seed, autonaming: autonaming})
}

func checkOptionsFrom(ctx context.Context) checkOptions {
	o, _ := ctx.Value(checkOptionsKey{}).(checkOptions)
	return o
}

// maxNameLength is the longest object name the API server accepts for these kinds
// (a DNS subdomain).
const maxNameLength = 253

// autoname decides metadata.name for an object whose program gave neither name nor
// generateName. It keeps the previous autoname unless the change replaces the object
// (a replacement is created before the old object is deleted, so it needs a new name).
// It returns a failure reason when the engine disabled autonaming.
func autoname(ctx context.Context, urn resource.URN, oldName string, replacing bool) (string, string) {
	opts := checkOptionsFrom(ctx)
	if a := opts.autonaming; a != nil {
		switch a.GetMode() {
		case rpc.CheckRequest_AutonamingOptions_DISABLE:
			return "", "metadata.name is required: autonaming is disabled for this stack"
		case rpc.CheckRequest_AutonamingOptions_ENFORCE:
			return a.GetProposedName(), ""
		case rpc.CheckRequest_AutonamingOptions_PROPOSE:
			if a.GetProposedName() != "" && (oldName == "" || replacing) {
				return a.GetProposedName(), ""
			}
		}
	}
	if oldName != "" && !replacing {
		return oldName, ""
	}
	name, err := resource.NewUniqueName(opts.seed, urn.Name()+"-", 8, maxNameLength, nil)
	if err != nil {
		return "", fmt.Sprintf("cannot derive a name from the resource name %q: %v; set metadata.name", urn.Name(), err)
	}
	return name, ""
}

// assignMetadata completes an object's metadata in Check: the namespace defaults to the
// provider's, and the name is generated unless the program set name or generateName.
// olds are the previous inputs (empty on create); replacing says whether the change
// forces a replacement.
func assignMetadata(ctx context.Context, urn resource.URN, news, olds property.Map, namespace string,
	replacing bool,
) (property.Map, []p.CheckFailure) {
	meta := nested(news, "metadata")
	var failures []p.CheckFailure
	if v, ok := meta.GetOk("namespace"); !ok || v.IsNull() || (v.IsString() && v.AsString() == "") {
		meta = meta.Set("namespace", property.New(namespace))
	}
	_, hasName := meta.GetOk("name")
	_, hasGenerateName := meta.GetOk("generateName")
	if !hasName && !hasGenerateName {
		oldMeta := nested(olds, "metadata")
		oldName, _ := str(oldMeta, "name")
		if _, oldGenerated := oldMeta.GetOk("generateName"); oldGenerated {
			oldName = ""
		}
		name, reason := autoname(ctx, urn, oldName, replacing)
		if reason != "" {
			failures = append(failures, p.CheckFailure{Property: "metadata.name", Reason: reason})
		} else {
			meta = meta.Set("name", property.New(name))
		}
	}
	return news.Set("metadata", property.New(meta)), failures
}
