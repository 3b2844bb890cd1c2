//go:build tools

// Package tools pins pulumi-java's language host and SDK generator.
package tools

import (
	_ "github.com/pulumi/pulumi-java/pkg/cmd/pulumi-java-gen"
	_ "github.com/pulumi/pulumi-java/pkg/cmd/pulumi-language-java"
)
