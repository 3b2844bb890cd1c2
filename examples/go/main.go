//go:build !runner

// Command endpoints-go is a normal Pulumi program (`pulumi up`); program.go holds
// what it declares. Built with -tags runner, the same package is instead the
// Automation API runner of run.go.
package main

import "github.com/pulumi/pulumi/sdk/v3/go/pulumi"

func main() {
	pulumi.Run(program)
}
