module github.com/endpoints-provider/pulumi-endpoints/tools/coredns

go 1.26

require github.com/coredns/coredns v1.15.0
