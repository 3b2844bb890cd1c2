// Command floor is the baseline of `make bench`: a pulumi-go-provider plugin that
// serves a tiny schema with one resource, floor:index:Noop, whose every call answers
// at once without I/O. Its start-up is compared with the provider's, and `pulumi up`,
// refresh and destroy of N Noop resources give the engine's own time for N resources,
// the floor no provider can go below.
//
// A second resource, floor:discovery.k8s.io/v1:EndpointSlice (the "shaped" floor),
// answers at once too, but leaves in the state what the provider's EndpointSlice
// leaves: Check adds the generated name and the ports' default protocol to the inputs,
// Create returns the object's server-set metadata (uid, resourceVersion,
// creationTimestamp, generation, the managed-by label, the URN annotation) and endpoint
// conditions, under a namespace/name ID, and its type token is as long as the
// provider's but for the package name. The engine's time for N of those is the floor for a state of the
// provider's size, which tells the engine's cost of that state from the provider's own.
package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// schema declares floor:index:Noop with the top-level properties of an EndpointSlice
// and of an EndpointsList, each of any type, so the benchmark programs of both can be
// pointed at it unchanged but for the type token.
const schema = `{
  "name": "floor",
  "version": "0.0.1",
  "resources": {
    "floor:index:Noop": ` + resourceSchema + `,
    "floor:discovery.k8s.io/v1:EndpointSlice": ` + resourceSchema + `
  }
}`

const resourceSchema = `{
      "inputProperties": {
        "metadata": {"$ref": "pulumi.json#/Any"},
        "addressType": {"type": "string"},
        "endpoints": {"type": "array", "items": {"$ref": "pulumi.json#/Any"}},
        "ports": {"type": "array", "items": {"$ref": "pulumi.json#/Any"}},
        "items": {"type": "array", "items": {"$ref": "pulumi.json#/Any"}}
      },
      "properties": {
        "metadata": {"$ref": "pulumi.json#/Any"},
        "addressType": {"type": "string"},
        "endpoints": {"type": "array", "items": {"$ref": "pulumi.json#/Any"}},
        "ports": {"type": "array", "items": {"$ref": "pulumi.json#/Any"}},
        "items": {"type": "array", "items": {"$ref": "pulumi.json#/Any"}}
      }
    }`

const shapedToken = "floor:discovery.k8s.io/v1:EndpointSlice"

func main() {
	prov := p.Provider{
		GetSchema: func(context.Context, p.GetSchemaRequest) (p.GetSchemaResponse, error) {
			return p.GetSchemaResponse{Schema: schema}, nil
		},
		Configure: func(context.Context, p.ConfigureRequest) error { return nil },
		// Check accepts the inputs as they are (a Shaped resource's with the provider's
		// additions).
		Check: func(_ context.Context, req p.CheckRequest) (p.CheckResponse, error) {
			if req.Urn.Type() == shapedToken {
				return p.CheckResponse{Inputs: shapedInputs(req.Urn.Name(), req.Inputs)}, nil
			}
			return p.CheckResponse{Inputs: req.Inputs}, nil
		},
		// Diff reports a change when the inputs differ, and never a replacement.
		Diff: func(_ context.Context, req p.DiffRequest) (p.DiffResponse, error) {
			return p.DiffResponse{HasChanges: !req.Inputs.Equals(req.OldInputs)}, nil
		},
		// Create's ID is the resource's name; its outputs are its inputs (a Shaped
		// resource's: as the provider's, under a namespace/name ID).
		Create: func(_ context.Context, req p.CreateRequest) (p.CreateResponse, error) {
			if req.Urn.Type() == shapedToken {
				meta := req.Properties.Get("metadata").AsMap()
				return p.CreateResponse{
					ID:         meta.Get("namespace").AsString() + "/" + meta.Get("name").AsString(),
					Properties: shapedOutputs(req.Properties),
				}, nil
			}
			return p.CreateResponse{ID: req.Urn.Name(), Properties: req.Properties}, nil
		},
		Read: func(_ context.Context, req p.ReadRequest) (p.ReadResponse, error) {
			return p.ReadResponse{ID: req.ID, Properties: req.Properties, Inputs: req.Inputs}, nil
		},
		Update: func(_ context.Context, req p.UpdateRequest) (p.UpdateResponse, error) {
			if req.Urn.Type() == shapedToken {
				return p.UpdateResponse{Properties: shapedOutputs(req.Inputs)}, nil
			}
			return p.UpdateResponse{Properties: req.Inputs}, nil
		},
		Delete: func(context.Context, p.DeleteRequest) error { return nil },
	}
	if err := prov.Run(context.Background(), "floor", "0.0.1"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// shapedInputs adds what the provider's Check adds to an EndpointSlice's inputs: a
// generated name (the resource's name and 8 hexadecimal digits) and each port's
// default protocol.
func shapedInputs(name string, in property.Map) property.Map {
	meta := in.Get("metadata").AsMap()
	if _, ok := meta.GetOk("name"); !ok {
		h := fnv.New32a()
		_, _ = h.Write([]byte(name))
		meta = meta.Set("name", property.New(fmt.Sprintf("%s-%08x", name, h.Sum32())))
	}
	in = in.Set("metadata", property.New(meta))
	if ports, ok := in.GetOk("ports"); ok && ports.IsArray() {
		out := make([]property.Value, 0, ports.AsArray().Len())
		for _, port := range ports.AsArray().All {
			m := port.AsMap()
			if _, ok := m.GetOk("protocol"); !ok {
				m = m.Set("protocol", property.New("TCP"))
			}
			out = append(out, property.New(m))
		}
		in = in.Set("ports", property.New(property.NewArray(out)))
	}
	return in
}

var resourceVersion atomic.Int64

// shapedOutputs is what the provider's EndpointSlice returns for inputs in: the
// inputs with the metadata the API server sets, the provider's
// managed-by label (its URN annotation stays out of the outputs, as the provider's
// does), and each endpoint's (empty) conditions.
func shapedOutputs(in property.Map) property.Map {
	uid := make([]byte, 16)
	_, _ = rand.Read(uid)
	meta := in.Get("metadata").AsMap().
		Set("uid", property.New(fmt.Sprintf("%x-%x-%x-%x-%x", uid[0:4], uid[4:6], uid[6:8], uid[8:10], uid[10:]))).
		Set("resourceVersion", property.New(strconv.FormatInt(resourceVersion.Add(1), 10))).
		Set("creationTimestamp", property.New(time.Now().UTC().Format(time.RFC3339))).
		Set("generation", property.New(1.0)).
		Set("labels", property.New(property.NewMap(map[string]property.Value{
			"endpointslice.kubernetes.io/managed-by": property.New("pulumi-endpoints"),
		})))
	out := in.Set("metadata", property.New(meta))
	if eps, ok := in.GetOk("endpoints"); ok && eps.IsArray() {
		shaped := make([]property.Value, 0, eps.AsArray().Len())
		for _, ep := range eps.AsArray().All {
			shaped = append(shaped, property.New(ep.AsMap().Set("conditions", property.New(property.Map{}))))
		}
		out = out.Set("endpoints", property.New(property.NewArray(shaped)))
	}
	return out
}
