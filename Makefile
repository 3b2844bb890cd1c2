# pulumi-endpoints: build, test and tool targets. `make help` lists them.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

# The release version: the VERSION file is the one place it is written. It is stamped
# into the plugin, the schema it serves, the SDK packages and the release archives.
VERSION ?= $(shell cat VERSION)
MODULE  := github.com/endpoints-provider/pulumi-endpoints
# -buildid= and -buildvcs=false (with -trimpath): the same commit links the same bytes
# wherever and whenever it is built.
LDFLAGS := -s -w -buildid= -X $(MODULE)/provider.Version=$(VERSION)
GOBUILD := CGO_ENABLED=0 go build -trimpath -buildvcs=false

BIN_DIR  ?= bin
# Where the release artifacts go (make dist DIST=/some/dir builds them elsewhere).
DIST     ?= dist
PROVIDER := $(BIN_DIR)/pulumi-resource-endpoints
# The provider built without the AWS and Azure credential libraries, for `make bench` alone.
PROVIDER_NO_CLOUD := $(BIN_DIR)/no-cloud-credentials/pulumi-resource-endpoints

# Pinned tools. Each is a tiny Go module under tools/; its go.mod is the one place its
# version is written. Binaries are cached per version under $(CACHE), so a new clone
# reuses them and a version bump rebuilds. They are linked without a symbol table or
# DWARF (-s -w), which no test reads: the largest links take a third less time.
CACHE ?= $(HOME)/.cache/pulumi-endpoints
modver = $(shell sed -nE 's#^[[:space:]]*(require )?$(1) (v[^ ]+).*#\2#p' tools/$(2)/go.mod | head -n 1)

PULUMI_VERSION      := $(call modver,github.com/pulumi/pulumi/pkg/v3,pulumi)
PULUMI_YAML_VERSION := $(call modver,github.com/pulumi/pulumi-yaml,pulumi-yaml)
KUBE_VERSION        := $(call modver,k8s.io/kubernetes,kube)
KUBE_OLDEST_VERSION := $(call modver,k8s.io/kubernetes,kube-oldest)
ETCD_VERSION        := $(call modver,go.etcd.io/etcd/server/v3,etcd)
GOLANGCI_VERSION    := $(call modver,github.com/golangci/golangci-lint/v2,golangci-lint)

PULUMI                  := $(CACHE)/pulumi-$(PULUMI_VERSION)/pulumi
PULUMI_LANGUAGE_YAML    := $(CACHE)/pulumi-yaml-$(PULUMI_YAML_VERSION)/pulumi-language-yaml
KUBE_APISERVER          := $(CACHE)/kube-$(KUBE_VERSION)/kube-apiserver
KUBE_CONTROLLER_MANAGER := $(CACHE)/kube-$(KUBE_VERSION)/kube-controller-manager
KUBECTL                 := $(CACHE)/kube-$(KUBE_VERSION)/kubectl
KUBE_APISERVER_OLDEST   := $(CACHE)/kube-$(KUBE_OLDEST_VERSION)/kube-apiserver
ETCD                    := $(CACHE)/etcd-$(ETCD_VERSION)/etcd
GOLANGCI_LINT           := $(CACHE)/golangci-lint-$(GOLANGCI_VERSION)/golangci-lint

# The Kubernetes binaries report the version they were built from (a module build
# otherwise says v0.0.0-master): $(call kube_ldflags,v1.37.2) sets gitVersion v1.37.2,
# gitMajor 1 and gitMinor 37, which GET /version answers.
kube_ldflags = -s -w -X k8s.io/component-base/version.gitVersion=$(1) \
	-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(1))) \
	-X k8s.io/component-base/version.gitTreeState=clean
KUBE_LDFLAGS        := $(call kube_ldflags,$(KUBE_VERSION))
KUBE_OLDEST_LDFLAGS := $(call kube_ldflags,$(KUBE_OLDEST_VERSION))

TOOLS := $(PULUMI) $(PULUMI_LANGUAGE_YAML) $(KUBE_APISERVER) $(KUBE_CONTROLLER_MANAGER) $(KUBECTL) \
	$(KUBE_APISERVER_OLDEST) $(ETCD)

# What the tests are told: the tools and the binary under test.
TEST_ENV := \
	TEST_ASSET_ETCD=$(ETCD) \
	TEST_ASSET_KUBE_APISERVER=$(KUBE_APISERVER) \
	TEST_ASSET_KUBE_CONTROLLER_MANAGER=$(KUBE_CONTROLLER_MANAGER) \
	TEST_ASSET_KUBE_APISERVER_OLDEST=$(KUBE_APISERVER_OLDEST) \
	TEST_ASSET_KUBECTL=$(KUBECTL) \
	TEST_ASSET_PULUMI=$(PULUMI) \
	TEST_ASSET_PULUMI_LANGUAGE_YAML=$(PULUMI_LANGUAGE_YAML) \
	TEST_ASSET_PROVIDER=$(abspath $(PROVIDER)) \
	TEST_ASSET_DIST=$(abspath $(DIST)) \
	TEST_ASSET_VERSION=$(VERSION)

GO_SOURCES := go.mod go.sum schema.json $(shell find cmd provider tests -name '*.go' 2>/dev/null) $(wildcard *.go)

.PHONY: help
help: ## List the targets.
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: provider
provider: $(PROVIDER) ## Build the provider plugin into bin/.

# CGO_ENABLED=0: a static binary, as Pulumi's own providers ship. It runs on any Linux
# (glibc or musl) and maps no C library at start-up (about 2 MiB less resident memory).
$(PROVIDER): $(GO_SOURCES) $(BIN_DIR)/.version
	$(GOBUILD) -ldflags "$(LDFLAGS)" -o $@ ./cmd/pulumi-resource-endpoints

# The same plugin with the endpoints_no_cloud_credentials tag, which links neither the AWS
# nor the Azure SDK (provider/kube/cloudauth/build_off.go; the Google libraries serve the
# lookups too): the start-up section of `make bench` measures what they add against it.
$(PROVIDER_NO_CLOUD): $(GO_SOURCES) $(BIN_DIR)/.version
	$(GOBUILD) -tags endpoints_no_cloud_credentials -ldflags "$(LDFLAGS)" -o $@ ./cmd/pulumi-resource-endpoints

# Rewritten only when VERSION changes, so a new version relinks the plugin.
$(BIN_DIR)/.version: FORCE
	@mkdir -p $(@D)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@

GOOS   := $(shell go env GOOS)
GOARCH := $(shell go env GOARCH)

# Release archives: one per platform Pulumi supports, each as `pulumi plugin install`
# unpacks it (the binary at the root, .exe on windows, with LICENSE and README.md).
PLATFORMS      := linux-amd64 linux-arm64 darwin-amd64 darwin-arm64 windows-amd64 windows-arm64
ARCHIVE         = $(DIST)/pulumi-resource-endpoints-v$(VERSION)-$(1).tar.gz
PLUGIN_ARCHIVES := $(foreach p,$(PLATFORMS),$(call ARCHIVE,$(p)))
PLUGIN_TARBALL  := $(call ARCHIVE,$(GOOS)-$(GOARCH))

# Every file in an archive has the last commit's time, owner and group 0 and a fixed
# mode; entries are sorted and gzip records no name or time: the same commit packs the
# same bytes (tests/release builds twice and compares).
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 315532800)
TAR := tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@$(SOURCE_DATE_EPOCH) --format=gnu

.PHONY: plugin
plugin: $(PLUGIN_TARBALL) ## Package the plugin for this machine as DIST/pulumi-resource-endpoints-v<version>-<os>-<arch>.tar.gz.

.PHONY: dist-plugins
dist-plugins: $(PLUGIN_ARCHIVES) $(DIST)/checksums.txt ## Build the plugin archives of every platform and checksums.txt into DIST.

.PHONY: dist
dist: dist-plugins ## Build every release artifact into DIST (dist/), stamped with VERSION: plugin archives, checksums, SDK packages, the Go module.

$(DIST)/pulumi-resource-endpoints-v$(VERSION)-%.tar.gz: $(GO_SOURCES) $(BIN_DIR)/.version $(BIN_DIR)/.source-date-epoch LICENSE README.md
	@case " $(PLATFORMS) " in *" $* "*) ;; *) echo "no release for platform $*: one of $(PLATFORMS)" >&2; exit 1;; esac
	rm -rf $(BIN_DIR)/release/$* && mkdir -p $(BIN_DIR)/release/$* $(@D)
	GOOS=$(word 1,$(subst -, ,$*)) GOARCH=$(word 2,$(subst -, ,$*)) $(GOBUILD) -ldflags "$(LDFLAGS)" \
		-o $(BIN_DIR)/release/$*/pulumi-resource-endpoints$(if $(filter windows-%,$*),.exe) ./cmd/pulumi-resource-endpoints
	cp LICENSE README.md $(BIN_DIR)/release/$*/
	chmod 0755 $(BIN_DIR)/release/$*/pulumi-resource-endpoints*
	chmod 0644 $(BIN_DIR)/release/$*/LICENSE $(BIN_DIR)/release/$*/README.md
	$(TAR) -C $(BIN_DIR)/release/$* -cf - LICENSE README.md pulumi-resource-endpoints$(if $(filter windows-%,$*),.exe) \
		| gzip -9n > $@.tmp
	mv $@.tmp $@

# Rewritten only when SOURCE_DATE_EPOCH changes, so a new commit packs the archives again
# with its time.
$(BIN_DIR)/.source-date-epoch: FORCE
	@mkdir -p $(@D)
	@echo '$(SOURCE_DATE_EPOCH)' | cmp -s - $@ || echo '$(SOURCE_DATE_EPOCH)' > $@

$(DIST)/checksums.txt: $(PLUGIN_ARCHIVES)
	cd $(@D) && sha256sum $(sort $(notdir $^)) > $(@F).tmp && mv $(@F).tmp $(@F)

.PHONY: install
install: $(PLUGIN_TARBALL) $(PULUMI) ## Install the plugin tarball with `pulumi plugin install` (PULUMI_HOME applies).
	$(PULUMI) plugin install resource endpoints $(VERSION) --file $(PLUGIN_TARBALL) --reinstall

.PHONY: tools
tools: $(TOOLS) ## Build the pinned tools (pulumi, YAML host, kube-apiserver, controller manager, kubectl, the oldest supported minor's kube-apiserver, etcd, kube-proxy, CoreDNS, pulumi-kubernetes) into the cache.

# Tool binaries are keyed by version in their path: they depend on their module only
# for existence, so a fresh clone does not rebuild what the cache already holds.
$(PULUMI): | tools/pulumi/go.mod
	@echo "building pulumi $(PULUMI_VERSION) (about 6 minutes on 2 cores)"
	mkdir -p $(@D)
	cd tools/pulumi && go build -trimpath -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$(PULUMI_VERSION)" \
		-o $@.tmp github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
	mv $@.tmp $@

$(PULUMI_LANGUAGE_YAML): | tools/pulumi-yaml/go.mod
	@echo "building pulumi-language-yaml $(PULUMI_YAML_VERSION) (about 3 minutes)"
	mkdir -p $(@D)
	cd tools/pulumi-yaml && go build -trimpath -ldflags "-s -w" -o $@.tmp github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml
	mv $@.tmp $@

$(KUBE_APISERVER) $(KUBE_CONTROLLER_MANAGER) &: | tools/kube/go.mod
	@echo "building kube-apiserver and kube-controller-manager $(KUBE_VERSION) (about 12 minutes on 2 busy cores)"
	mkdir -p $(@D)/.tmp
	cd tools/kube && go build -trimpath -ldflags "$(KUBE_LDFLAGS)" -o $(@D)/.tmp/ \
		k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
	mv $(@D)/.tmp/kube-apiserver $(KUBE_APISERVER)
	mv $(@D)/.tmp/kube-controller-manager $(KUBE_CONTROLLER_MANAGER)
	rmdir $(@D)/.tmp

# The kube-apiserver of the oldest Kubernetes minor the provider supports, alone, from
# its own module (tools/kube-oldest): the tests run against it beside the newest
# control plane (TEST_ASSET_KUBE_APISERVER_OLDEST).
$(KUBE_APISERVER_OLDEST): | tools/kube-oldest/go.mod
	@echo "building kube-apiserver $(KUBE_OLDEST_VERSION) (about 4 minutes)"
	mkdir -p $(@D)
	cd tools/kube-oldest && go build -trimpath -ldflags "$(KUBE_OLDEST_LDFLAGS)" -o $@.tmp k8s.io/kubernetes/cmd/kube-apiserver
	mv $@.tmp $@

# kubectl, at the API server's version, for the tests that run the examples' README
# steps as a user types them.
$(KUBECTL): | tools/kube/go.mod
	@echo "building kubectl $(KUBE_VERSION) (about 1 minute once kube-apiserver is built)"
	mkdir -p $(@D)
	cd tools/kube && go build -trimpath -ldflags "$(KUBE_LDFLAGS)" -o $@.tmp k8s.io/kubernetes/cmd/kubectl
	mv $@.tmp $@

$(ETCD): | tools/etcd/go.mod
	@echo "building etcd $(ETCD_VERSION) (about 1 minute)"
	mkdir -p $(@D)
	cd tools/etcd && go build -trimpath -ldflags "-s -w" -o $@.tmp go.etcd.io/etcd/server/v3
	mv $@.tmp $@

$(GOLANGCI_LINT): | tools/golangci-lint/go.mod
	@echo "building golangci-lint $(GOLANGCI_VERSION) (about 3 minutes)"
	mkdir -p $(@D)
	cd tools/golangci-lint && go build -trimpath -o $@.tmp github.com/golangci/golangci-lint/v2/cmd/golangci-lint
	mv $@.tmp $@

.PHONY: gen
gen: ## Regenerate the SDKs under sdk/ from schema.json.
	go run ./cmd/pulumi-gen-endpoints -schema schema.json -out sdk -version $(VERSION) -dotnet-gen $(GEN_DOTNET) $(GEN_FLAGS)

# Flags for the generator that other fragments (mk/*.mk) add, such as another
# language's generator binary.
GEN_FLAGS ?=

# The C# generator left pulumi's pkg/v3 codegen before v3.230.0: tools/gen-dotnet pins an
# older release that has it, and pulumi-gen-endpoints runs the binary built from it. It
# is our own code, so its sources are prerequisites too (a rebuild from the Go build
# cache takes seconds).
GEN_DOTNET_VERSION := $(call modver,github.com/pulumi/pulumi/pkg/v3,gen-dotnet)
GEN_DOTNET         := $(CACHE)/gen-dotnet-$(GEN_DOTNET_VERSION)/pulumi-gen-dotnet

gen: $(GEN_DOTNET)

$(GEN_DOTNET): $(wildcard tools/gen-dotnet/*.go) tools/gen-dotnet/go.sum | tools/gen-dotnet/go.mod
	@echo "building pulumi-gen-dotnet with pulumi codegen $(GEN_DOTNET_VERSION) (about 2 minutes the first time)"
	mkdir -p $(@D)
	cd tools/gen-dotnet && go build -trimpath -o $@.tmp .
	mv $@.tmp $@

# The examples (examples/<group>/<language>) name the newest release, the top released
# section of CHANGELOG.md, as a user's program does; between releases VERSION is a
# prerelease. `make examples-dist` builds what they install, stamped with that version,
# into $(EXAMPLES_DIST) (the plugin of this machine only), and tests/examples serves it
# from local registries.
EXAMPLES_VERSION ?= $(shell sed -nE 's/^## \[([0-9]+\.[0-9]+\.[0-9]+)\].*/\1/p' CHANGELOG.md | head -n 1)
EXAMPLES_DIST    := build/examples
EXAMPLES_MAKE    := $(MAKE) --no-print-directory VERSION=$(EXAMPLES_VERSION) DIST=$(EXAMPLES_DIST) \
	BIN_DIR=$(EXAMPLES_DIST)/bin PLATFORMS=$(GOOS)-$(GOARCH)
EXAMPLES_PLUGIN  := $(EXAMPLES_DIST)/pulumi-resource-endpoints-v$(EXAMPLES_VERSION)-$(GOOS)-$(GOARCH).tar.gz

TEST_ENV += TEST_ASSET_EXAMPLES_DIST=$(abspath $(EXAMPLES_DIST)) TEST_ASSET_EXAMPLES_VERSION=$(EXAMPLES_VERSION)

.PHONY: examples-dist
examples-dist: ## Build what the examples install (plugin, SDK packages), stamped with the newest release in CHANGELOG.md, into build/examples.
	$(EXAMPLES_MAKE) dist

.PHONY: examples-plugin
examples-plugin:
	$(EXAMPLES_MAKE) plugin

.PHONY: test
test: tools provider dist examples-dist ## Run every test: unit, control plane, provider, CLI and the examples' READMEs, then fuzz-short.
	$(TEST_ENV) go test -count=1 -timeout 60m ./...
	@$(MAKE) --no-print-directory fuzz-short

# The fuzz targets, as <package>:<target>: every func Fuzz... of a test file under provider/.
FUZZ_TARGETS := $(shell grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' provider \
	| sed -E 's|^(.*)/[^/]*_test\.go:func |./\1:|' | sort)
# How long `make fuzz` fuzzes each target, and `make fuzz-short` (in `make test`).
FUZZTIME       ?= 2m
FUZZTIME_SHORT ?= 5s

# $(call fuzz_each,time) fuzzes each of FUZZ_TARGETS for time, one `go test -fuzz` each (the
# package is compiled once, with coverage instrumentation, and cached), and prints a line a
# target: the inputs run. A crash prints go test's report and fails: the input that crashed
# is written to the package's testdata/fuzz/<target>/, where it stays a seed once fixed.
# Go 1.26's fuzzing engine may end a run with a bare "context deadline exceeded" when the
# fuzz time ends on a loaded machine, with no input written (go.dev/issue/75804, fixed in
# Go 1.27): that run is made again, once, and a second such end fails.
define fuzz_each
	for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		for attempt in 1 2; do \
			if out=$$(go test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(1) $$pkg 2>&1); then break; fi; \
			if [ $$attempt = 1 ] && echo "$$out" | grep -q '^    context deadline exceeded$$' && \
				! echo "$$out" | grep -q 'Failing input written to'; then \
				echo "fuzz $$name ($$pkg): the engine's deadline race (go.dev/issue/75804), no input found: again"; continue; \
			fi; \
			echo "$$out"; echo "fuzz $$name ($$pkg): failed; a crashing input is in $$pkg/testdata/fuzz/$$name/" >&2; exit 1; \
		done; \
		echo "fuzz $$name ($$pkg): $$(echo "$$out" | grep '^fuzz: elapsed' | tail -n 1 | sed 's/^fuzz: //')"; \
	done
endef

.PHONY: fuzz
fuzz: ## Fuzz each target of provider/ for FUZZTIME (2m) and print the inputs each ran; a crash fails and is kept in testdata/fuzz.
	@$(call fuzz_each,$(FUZZTIME))

.PHONY: fuzz-short
fuzz-short: ## The bounded fuzzing make test runs: each target for FUZZTIME_SHORT (5s), then the generated wrong-type and secrets tests, with case counts.
	@$(call fuzz_each,$(FUZZTIME_SHORT))
	@out=$$(go test -count=1 -run '^(TestWrongTypesAreAnswered|TestSecretsNeverLeak)$$' -v ./provider/ 2>&1) || { echo "$$out"; exit 1; }; \
		echo "$$out" | grep -E '^(TestWrongTypesAreAnswered|TestSecretsNeverLeak): '

.PHONY: test-env
test-env: ## Print the TEST_ASSET_* exports `make test` uses, to run one test by hand: eval "$$(make -s test-env)".
	@$(foreach v,$(TEST_ENV),echo 'export $(v)';)

# BENCH_FLAGS passes flags to tests/cmd/bench, e.g. a quick run into a scratch file:
#   make bench BENCH_FLAGS='-out /tmp/bench.md -runs 1 -engine-runs 1 -slices 200 -list-items 100'
# (`go run ./tests/cmd/bench -help` lists them: -only, -runs, -engine-runs, -large-runs, -slices, -list-items,
# -rtt, -durable-etcd, -pulumi-kubernetes-slices, -pulumi-kubernetes-bound, -pulumi-kubernetes-newest, -out).
# Each section of the report names its own run (date, machine, load, versions); a run of some sections (-only)
# rewrites those and keeps the others as they were. The side-by-side section with a newer pulumi-kubernetes,
# built by hand from its release tag (CONTRIBUTING.md), runs only when given:
#   make bench BENCH_FLAGS='-only pulumi-kubernetes-newest -pulumi-kubernetes-newest PATH -pulumi-kubernetes-newest-version V'
# The engine section runs the slice programs under 1000 slices and the EndpointsList at each round trip of
# -rtt (default 0,50ms: the API server behind a proxy that holds each request and answer 25 ms), with etcd
# fsyncing every write
# (-durable-etcd=false: --unsafe-no-fsync). The pulumi-kubernetes section runs the 200-slice program with
# pulumi-kubernetes's EndpointSlice beside the provider's and the floor's (-pulumi-kubernetes-slices 200,2000
# adds 2000), each command killed and reported as hung past its bound. The engine section times up, refresh
# and destroy of each slice count against the floor, with the API requests of each (refresh: a few lists, the
# Reads sharing them); its figures alone, and the drift section's:
#   make bench BENCH_FLAGS='-out /tmp/bench.md -only engine,drift -slices 200,2000 -rtt 0 -list-items 0'
BENCH_FLAGS ?=

.PHONY: bench
bench: tools provider $(PROVIDER_NO_CLOUD) ## Measure start-up, footprint, Check, overhead and scale against the engine's floor and beside pulumi-kubernetes; write BENCHMARKS.md (BENCH_FLAGS=...).
	$(TEST_ENV) TEST_ASSET_PROVIDER_NO_CLOUD_CREDENTIALS=$(abspath $(PROVIDER_NO_CLOUD)) go run ./tests/cmd/bench -out BENCHMARKS.md -version $(VERSION) -pulumi-version $(PULUMI_VERSION) \
		-yaml-version $(PULUMI_YAML_VERSION) -kube-version $(KUBE_VERSION) -etcd-version $(ETCD_VERSION) $(BENCH_FLAGS)

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Lint with golangci-lint (.golangci.yaml), the Go test program's module too.
	$(GOLANGCI_LINT) run ./...
	cd tests/e2e/testdata/programs/go && $(GOLANGCI_LINT) run --config ../../../../../.golangci.yaml ./...

# The demo builds only what it runs: the pulumi CLI and its YAML host, etcd,
# kube-apiserver and kube-controller-manager, and the plugin at the examples' version
# (not kubectl, the data plane, the Java hosts or pulumi-kubernetes, which `make tools`
# adds for the tests). It needs Go, make and the GNU tools CONTRIBUTING.md lists, and
# no root. The demo program is built with the plugin's flags, so the packages they share
# compile once.
# The local control plane's binaries and the variables that name them to
# tests/harness/controlplane (the demo's, and `make cluster`'s in mk/try.mk).
CONTROL_PLANE_TOOLS := $(ETCD) $(KUBE_APISERVER) $(KUBE_CONTROLLER_MANAGER)
CONTROL_PLANE_ENV   := TEST_ASSET_ETCD=$(ETCD) TEST_ASSET_KUBE_APISERVER=$(KUBE_APISERVER) \
	TEST_ASSET_KUBE_CONTROLLER_MANAGER=$(KUBE_CONTROLLER_MANAGER)

# $(TWO_AT_A_TIME) is a sub-make's -j2, unless make was given -j: while one build links
# or downloads modules, the other compiles. On 2 cores a cold demo builds in less time so.
TWO_AT_A_TIME = $(if $(filter -j%,$(MAKEFLAGS)),,-j2)

DEMO_TOOLS := $(PULUMI) $(PULUMI_LANGUAGE_YAML) $(CONTROL_PLANE_TOOLS)
DEMO_CMD   := $(BIN_DIR)/demo

$(DEMO_CMD): $(GO_SOURCES)
	$(GOBUILD) -o $@ ./tests/cmd/demo

.PHONY: demo
demo: ## Run the demo: `pulumi up` of examples/kubernetes/yaml against a local control plane (builds only the tools it runs).
	@$(MAKE) --no-print-directory $(TWO_AT_A_TIME) $(DEMO_TOOLS) $(DEMO_CMD) examples-plugin
	$(CONTROL_PLANE_ENV) $(DEMO_CMD) -pulumi $(PULUMI) -yaml-host $(PULUMI_LANGUAGE_YAML) -plugin $(EXAMPLES_PLUGIN) \
		-version $(EXAMPLES_VERSION) -example examples/kubernetes/yaml

# Release artifacts (make dist) and the Java SDK and tools live in their own fragments.
include $(sort $(wildcard mk/*.mk))

.PHONY: clean
clean: ## Remove build outputs (not the tool cache).
	rm -rf $(BIN_DIR) $(DIST) build

.PHONY: FORCE
FORCE:
