package kube

import (
	"context"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// Lifecycle is one resource's lifecycle as the provider dispatches it.
type Lifecycle interface {
	Check(context.Context, p.CheckRequest) (p.CheckResponse, error)
	Diff(context.Context, p.DiffRequest) (p.DiffResponse, error)
	Create(context.Context, p.CreateRequest) (p.CreateResponse, error)
	Read(context.Context, p.ReadRequest) (p.ReadResponse, error)
	Update(context.Context, p.UpdateRequest) (p.UpdateResponse, error)
	Delete(context.Context, p.DeleteRequest) error
}

// offlinePreviewer is a lifecycle that tells what a preview shows when the API server
// cannot be reached (see Unreachable): the outputs it can tell from the checked inputs
// alone. A lifecycle that does not tell shows the inputs as they are.
type offlinePreviewer interface {
	previewOffline(inputs property.Map) property.Map
}

var (
	_ offlinePreviewer = (*EndpointSlice)(nil)
	_ offlinePreviewer = (*EndpointsList)(nil)
)

// previewOffline is the slice's inputs, with what only the server knows left unknown.
func (r *EndpointSlice) previewOffline(inputs property.Map) property.Map {
	return previewOutputs(inputs)
}

// previewOffline is the list's inputs: its items are written as they are given.
func (r *EndpointsList) previewOffline(inputs property.Map) property.Map { return inputs }
