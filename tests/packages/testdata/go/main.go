// A user's program with the Go SDK module: an EndpointSlice and an EndpointsList, run
// as an Automation API inline program (no Go language host needed).
//
//	go run . <up|destroy>
//
// It uses the stack "dev" of Pulumi.yaml in the current directory and prints one JSON
// line on stdout: {"changes": {<op>: <count>}, "outputs": {...}}.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	corev1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/core/v1"
	discoveryv1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/discovery/v1"
	metav1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func program(ctx *pulumi.Context) error {
	web, err := discoveryv1.NewEndpointSlice(ctx, "web", &discoveryv1.EndpointSliceArgs{
		Metadata: &metav1.ObjectMetaArgs{
			Labels: pulumi.StringMap{"kubernetes.io/service-name": pulumi.String("web")},
		},
		AddressType: discoveryv1.AddressTypeIPV4,
		Endpoints: discoveryv1.EndpointArray{&discoveryv1.EndpointArgs{
			Addresses:  pulumi.StringArray{pulumi.String("10.0.0.10")},
			Conditions: &discoveryv1.EndpointConditionsArgs{Ready: pulumi.Bool(true)},
		}},
		Ports: discoveryv1.EndpointPortArray{&discoveryv1.EndpointPortArgs{
			Name: pulumi.String("http"),
			Port: pulumi.Int(8080),
		}},
	})
	if err != nil {
		return err
	}
	legacy, err := corev1.NewEndpointsList(ctx, "legacy", &corev1.EndpointsListArgs{
		Items: corev1.EndpointsArray{&corev1.EndpointsArgs{
			Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String("web-legacy")},
			Subsets: corev1.EndpointSubsetArray{&corev1.EndpointSubsetArgs{
				Addresses: corev1.EndpointAddressArray{&corev1.EndpointAddressArgs{Ip: pulumi.String("10.0.0.10")}},
				Ports:     corev1.EndpointPortArray{&corev1.EndpointPortArgs{Name: pulumi.String("http"), Port: pulumi.Int(8080)}},
			}},
		}},
	})
	if err != nil {
		return err
	}
	ctx.Export("sliceName", web.Metadata.Name())
	ctx.Export("sliceNamespace", web.Metadata.Namespace())
	ctx.Export("legacyItems", legacy.Items.ApplyT(func(items []corev1.Endpoints) []string {
		names := make([]string, 0, len(items))
		for _, item := range items {
			if item.Metadata != nil && item.Metadata.Name != nil {
				names = append(names, *item.Metadata.Name)
			}
		}
		return names
	}).(pulumi.StringArrayOutput))
	return nil
}

type result struct {
	Changes map[string]int `json:"changes"`
	Outputs map[string]any `json:"outputs,omitempty"`
}

func run(ctx context.Context, operation string) (*result, error) {
	workDir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	stack, err := auto.SelectStackInlineSource(ctx, "dev", "packages-go", program, auto.WorkDir(workDir))
	if err != nil {
		return nil, err
	}
	switch operation {
	case "up":
		r, err := stack.Up(ctx, optup.ProgressStreams(os.Stderr))
		if err != nil {
			return nil, err
		}
		outputs := map[string]any{}
		for k, v := range r.Outputs {
			outputs[k] = v.Value
		}
		return &result{Changes: *r.Summary.ResourceChanges, Outputs: outputs}, nil
	case "destroy":
		r, err := stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stderr))
		if err != nil {
			return nil, err
		}
		return &result{Changes: *r.Summary.ResourceChanges}, nil
	}
	return nil, fmt.Errorf("unknown operation %q: want up or destroy", operation)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run . <up|destroy>")
		os.Exit(2)
	}
	res, err := run(context.Background(), os.Args[1])
	if err == nil {
		err = json.NewEncoder(os.Stdout).Encode(res)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
