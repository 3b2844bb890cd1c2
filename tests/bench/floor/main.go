// Command floor is the baseline of `make bench`: a pulumi-go-provider plugin that
// serves a tiny schema with one resource, floor:index:Noop, whose every call answers
// at once without I/O. Its start-up is compared with the provider's, and `pulumi up`,
// refresh and destroy of N Noop resources give the engine's own time for N resources,
// the floor no provider can go below.
package main

import (
	"context"
	"fmt"
	"os"

	p "github.com/pulumi/pulumi-go-provider"
)

// schema declares floor:index:Noop with the top-level properties of an EndpointSlice
// and of an EndpointsList, each of any type, so the benchmark programs of both can be
// pointed at it unchanged but for the type token.
const schema = `{
  "name": "floor",
  "version": "0.0.1",
  "resources": {
    "floor:index:Noop": {
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
    }
  }
}`

func main() {
	prov := p.Provider{
		GetSchema: func(context.Context, p.GetSchemaRequest) (p.GetSchemaResponse, error) {
			return p.GetSchemaResponse{Schema: schema}, nil
		},
		Configure: func(context.Context, p.ConfigureRequest) error { return nil },
		// Check accepts the inputs as they are.
		Check: func(_ context.Context, req p.CheckRequest) (p.CheckResponse, error) {
			return p.CheckResponse{Inputs: req.Inputs}, nil
		},
		// Diff reports a change when the inputs differ, and never a replacement.
		Diff: func(_ context.Context, req p.DiffRequest) (p.DiffResponse, error) {
			return p.DiffResponse{HasChanges: !req.Inputs.Equals(req.OldInputs)}, nil
		},
		// Create's ID is the resource's name; its outputs are its inputs.
		Create: func(_ context.Context, req p.CreateRequest) (p.CreateResponse, error) {
			return p.CreateResponse{ID: req.Urn.Name(), Properties: req.Properties}, nil
		},
		Read: func(_ context.Context, req p.ReadRequest) (p.ReadResponse, error) {
			return p.ReadResponse{ID: req.ID, Properties: req.Properties, Inputs: req.Inputs}, nil
		},
		Update: func(_ context.Context, req p.UpdateRequest) (p.UpdateResponse, error) {
			return p.UpdateResponse{Properties: req.Inputs}, nil
		},
		Delete: func(context.Context, p.DeleteRequest) error { return nil },
	}
	if err := prov.Run(context.Background(), "floor", "0.0.1"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
