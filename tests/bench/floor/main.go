// Command floor is the start-up baseline of `make bench`: a pulumi-go-provider plugin
// that serves a tiny schema and nothing else. The provider's start-up is compared
// with it in the same run.
package main

import (
	"context"
	"fmt"
	"os"

	p "github.com/pulumi/pulumi-go-provider"
)

func main() {
	prov := p.Provider{
		GetSchema: func(context.Context, p.GetSchemaRequest) (p.GetSchemaResponse, error) {
			return p.GetSchemaResponse{Schema: `{"name":"floor","version":"0.0.1"}`}, nil
		},
	}
	if err := prov.Run(context.Background(), "floor", "0.0.1"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
