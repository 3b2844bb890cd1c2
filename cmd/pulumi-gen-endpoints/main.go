package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/endpoints-provider/pulumi-endpoints/cmd/pulumi-gen-endpoints/internal/sdkgen"
)

func main() {
	var opts sdkgen.Options
	flag.StringVar(&opts.SchemaPath, "schema", "schema.json", "path of the package schema")
	flag.StringVar(&opts.OutDir, "out", "sdk", "directory to write the SDKs into, one subdirectory per language")
	flag.StringVar(&opts.Version, "version", "", "version of the SDKs and of the plugin they ask for, such as 0.1.0 (required)")
	flag.StringVar(&opts.DotnetGenerator, "dotnet-gen", "", "path of the pulumi-gen-dotnet binary built from tools/gen-dotnet (required)")
	flag.StringVar(&opts.JavaGenerator, "java-gen", "", "path of the pulumi-java-gen binary built from tools/pulumi-java (required)")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintf(os.Stderr, "pulumi-gen-endpoints: unexpected arguments %q\n", flag.Args())
		flag.Usage()
		os.Exit(2)
	}
	if err := sdkgen.Generate(opts); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-gen-endpoints: %v\n", err)
		os.Exit(1)
	}
}
