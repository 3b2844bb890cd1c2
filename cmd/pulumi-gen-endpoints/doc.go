// Command pulumi-gen-endpoints generates the SDKs of the endpoints provider from its
// package schema, with Pulumi's own code generators:
//
//	pulumi-gen-endpoints -schema schema.json -out sdk -version 0.5.0 \
//	    -dotnet-gen ~/.cache/pulumi-endpoints/gen-dotnet-v3.200.0/pulumi-gen-dotnet \
//	    -java-gen ~/.cache/pulumi-endpoints/pulumi-java-v1.16.0/pulumi-java-gen
//
// It writes sdk/go (module sdk/go.mod), sdk/nodejs, sdk/python, sdk/dotnet and sdk/java,
// replacing each of those directories whole, so files that the schema no longer
// produces disappear. The version is written into the schema before generating, so
// every SDK carries it and names it as the version of the plugin it needs.
//
// The Go, Node.js and Python SDKs come from github.com/pulumi/pulumi/pkg/v3 at the
// version this repository requires. The .NET generator is no longer part of current
// releases of that module, so the C# SDK comes from the pulumi-gen-dotnet command of
// tools/gen-dotnet, which pins an older release that still has it; this command runs
// it (`make gen` builds it first). The Java SDK comes from pulumi-java's generator,
// pinned in tools/pulumi-java, with a pom.xml and the plugin.json the Java language
// host reads, which that generator does not write. See package sdkgen for the details, among them how
// the Go SDK gets its Lookup function names.
//
// `make gen` runs this command; the generated SDKs are committed, and the tests in
// tests/sdk fail when regenerating would change them.
package main
