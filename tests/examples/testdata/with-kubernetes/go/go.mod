module with-kubernetes-go

go 1.25.11

require (
	github.com/endpoints-provider/pulumi-endpoints/sdk v0.6.0
	github.com/pulumi/pulumi-kubernetes/sdk/v4 v4.25.0
	github.com/pulumi/pulumi/sdk/v3 v3.256.0
)
