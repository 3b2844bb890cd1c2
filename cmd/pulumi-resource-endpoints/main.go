// Command pulumi-resource-endpoints is the endpoints resource provider plugin. The
// Pulumi engine starts it; `pulumi-resource-endpoints --version` prints its version.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/endpoints-provider/pulumi-endpoints/provider"
)

func main() {
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "-version") {
		fmt.Println(provider.Version)
		return
	}
	ctx := context.Background()
	if err := provider.Serve(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-resource-%s: %v\n", provider.Name, err)
		os.Exit(1)
	}
}
