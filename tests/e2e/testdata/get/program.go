package main

import (
	corev1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/core/v1"
	discoveryv1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/discovery/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// program reads objects the cluster has, without managing them: the EndpointSlice by
// its namespace/name, the Endpoints by namespace and label selector.
func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	slice, err := discoveryv1.GetEndpointSlice(ctx, "existing-slice", pulumi.ID(cfg.Require("sliceId")), nil)
	if err != nil {
		return err
	}
	list, err := corev1.GetEndpointsList(ctx, "existing-endpoints", pulumi.ID(cfg.Require("listId")), nil)
	if err != nil {
		return err
	}
	ctx.Export("sliceId", slice.ID())
	ctx.Export("slice", pulumi.Map{
		"metadata":    slice.Metadata,
		"addressType": slice.AddressType,
		"endpoints":   slice.Endpoints,
		"ports":       slice.Ports,
	})
	ctx.Export("listId", list.ID())
	ctx.Export("list", pulumi.Map{"metadata": list.Metadata, "items": list.Items})
	return nil
}
