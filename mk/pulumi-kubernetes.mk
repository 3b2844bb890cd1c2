# pulumi-kubernetes, the official Kubernetes provider, which the tests and the benchmark
# run beside ours. tools/pulumi-kubernetes/go.mod pins its provider module (a
# pseudo-version: the proxy serves no other) and, in the comment on the same line, the
# release that commit is; the binary is cached under that release.
PULUMI_KUBERNETES_MODULE  := github.com/pulumi/pulumi-kubernetes/provider/v4
PULUMI_KUBERNETES_VERSION := $(shell sed -nE 's#^[[:space:]]*(require )?$(PULUMI_KUBERNETES_MODULE) v[^ ]+ // v([0-9]+\.[0-9]+\.[0-9]+)$$#\2#p' tools/pulumi-kubernetes/go.mod)
PULUMI_KUBERNETES         := $(CACHE)/pulumi-kubernetes-v$(PULUMI_KUBERNETES_VERSION)/pulumi-resource-kubernetes

# The plugin embeds a schema stamped with its version, which its own generate.go writes
# from the schema.json the module ships. The build copies the module out of the module
# cache, drops its `replace .../sdk/v4 => ../sdk` (the SDK module is not in the provider
# module's zip; the proxy serves the version it requires), generates and builds there.
# -mod=mod: the module's go.sum has no entries for the SDK it replaced.
$(PULUMI_KUBERNETES): | tools/pulumi-kubernetes/go.mod
	@[ -n "$(PULUMI_KUBERNETES_VERSION)" ] || { echo "tools/pulumi-kubernetes/go.mod names no release after its require" >&2; exit 1; }
	@echo "building pulumi-resource-kubernetes $(PULUMI_KUBERNETES_VERSION) (about 16 minutes on 2 cores)"
	rm -rf $(@D)/src && mkdir -p $(@D)
	cp -R "$$(cd tools/pulumi-kubernetes && go mod download -json $(PULUMI_KUBERNETES_MODULE) \
		| sed -nE 's/^[[:space:]]*"Dir": "(.*)",?$$/\1/p')" $(@D)/src
	chmod -R u+w $(@D)/src
	cd $(@D)/src && go mod edit -dropreplace github.com/pulumi/pulumi-kubernetes/sdk/v4
	cd $(@D)/src/cmd/pulumi-resource-kubernetes && VERSION=$(PULUMI_KUBERNETES_VERSION) go run -mod=mod generate.go
	cd $(@D)/src && go build -mod=mod -trimpath \
		-ldflags "-s -w -X $(PULUMI_KUBERNETES_MODULE)/pkg/version.Version=$(PULUMI_KUBERNETES_VERSION)" \
		-o $@.tmp ./cmd/pulumi-resource-kubernetes
	mv $@.tmp $@
	rm -rf $(@D)/src

tools: $(PULUMI_KUBERNETES)

TEST_ENV += TEST_ASSET_PULUMI_KUBERNETES=$(PULUMI_KUBERNETES) TEST_ASSET_PULUMI_KUBERNETES_VERSION=$(PULUMI_KUBERNETES_VERSION)
