# Trying the provider from a clone: a local control plane left running, the plugin and one
# language's SDK installed with the user's own pulumi CLI, and the examples run as written.
# Each target builds only what it needs: `make cluster` the control plane's three
# binaries, `make install-<language>` this machine's plugin and that language's package
# (no other platform, no other language's toolchain).

# The local control plane: etcd, kube-apiserver and kube-controller-manager with every
# controller, started by tests/cmd/cluster in a process of its own that outlives make. Its
# binaries (CONTROL_PLANE_TOOLS) build two at a time, as the demo's do.
CLUSTER_DIR   := build/cluster
CLUSTER_CMD   := $(BIN_DIR)/cluster

$(CLUSTER_CMD): $(GO_SOURCES)
	$(GOBUILD) -o $@ ./tests/cmd/cluster

.PHONY: cluster
cluster: ## Start a local control plane (etcd, kube-apiserver, every controller) and leave it running; kubeconfig in build/cluster/.
	@$(MAKE) --no-print-directory $(TWO_AT_A_TIME) $(CONTROL_PLANE_TOOLS) $(CLUSTER_CMD)
	@$(CONTROL_PLANE_ENV) $(CLUSTER_CMD) start -dir $(CLUSTER_DIR)

.PHONY: cluster-stop
cluster-stop: $(CLUSTER_CMD) ## Stop the control plane `make cluster` started and delete its data.
	@$(CLUSTER_CMD) stop -dir $(CLUSTER_DIR)

# install-<language>: this machine's plugin into PULUMI_HOME with the pulumi CLI on PATH
# (the one the user's programs run with), that language's package into DIST, and the
# lines that use them. $(call install_plugin) installs the plugin; $(call print_use,lines)
# prints the exports and the language's lines (printf's format: \n ends a line).
define install_plugin
	@pulumi=$$(command -v pulumi) || { echo "no pulumi on PATH: install the Pulumi CLI, https://www.pulumi.com/docs/install/" >&2; exit 1; }; \
	echo "$$pulumi plugin install resource endpoints $(VERSION) --file $(PLUGIN_TARBALL)"; \
	"$$pulumi" plugin install resource endpoints $(VERSION) --file $(PLUGIN_TARBALL) --reinstall
endef
define print_use
	@printf '\nThe plugin %s is installed. In your shell:\n\n    export ENDPOINTS_DIST="%s" ENDPOINTS_VERSION="%s"\n\n' \
		'$(VERSION)' '$(abspath $(DIST))' '$(VERSION)'
	@printf '$(1)'
endef

.PHONY: install-yaml
install-yaml: $(PLUGIN_TARBALL) ## Install this machine's plugin with the pulumi on PATH (YAML needs no SDK): needs Go and the Pulumi CLI.
	$(call install_plugin)
	$(call print_use,A YAML program names the types (endpoints:discovery.k8s.io/v1:EndpointSlice) and uses the installed plugin.\n)

.PHONY: install-nodejs
install-nodejs: $(PLUGIN_TARBALL) $(NPM_PACKAGE) ## Install the plugin and build the npm package into dist/: adds Node.js and npm.
	$(call install_plugin)
	$(call print_use,Then in your program'\''s directory:\n\n    npm install "$$ENDPOINTS_DIST/$(notdir $(NPM_PACKAGE:$(VERSION).tgz=))$$ENDPOINTS_VERSION.tgz"\n)

.PHONY: install-python
install-python: $(PLUGIN_TARBALL) $(WHEEL) ## Install the plugin and build the Python wheel into dist/: adds Python with venv.
	$(call install_plugin)
	$(call print_use,Then in your program'\''s directory (the virtualenv pulumi new python made):\n\n    venv/bin/pip install "$$ENDPOINTS_DIST/$(notdir $(WHEEL))"\n)

.PHONY: install-go
install-go: $(PLUGIN_TARBALL) $(GO_MODULE_FILES) ## Install the plugin and build the Go SDK module into dist/goproxy.
	$(call install_plugin)
	$(call print_use,Then in your program'\''s directory:\n\n    GONOSUMDB=$(MODULE) GOPROXY="file://$$ENDPOINTS_DIST/goproxy$(comma)$$(go env GOPROXY)" \\\n        go get "$(GO_SDK_MODULE)@v$$ENDPOINTS_VERSION"\n)

.PHONY: install-java
install-java: $(PLUGIN_TARBALL) $(JAVA_JAR) $(JAVA_POM) ## Install the plugin and build the jar and pom into dist/: adds a JDK 11 and Maven.
	$(call install_plugin)
	$(call print_use,Then put them in your local Maven repository and depend on com.endpointsprovider:endpoints:$(VERSION):\n\n    mvn install:install-file -Dfile="$$ENDPOINTS_DIST/$(notdir $(JAVA_JAR:$(VERSION).jar=))$$ENDPOINTS_VERSION.jar" \\\n        -DpomFile="$$ENDPOINTS_DIST/$(notdir $(JAVA_POM:$(VERSION).pom=))$$ENDPOINTS_VERSION.pom"\n)

comma := ,

# The examples as written: each example's README steps against local registries that
# serve the packages built here at the examples' version (make examples-dist), on a local
# control plane: the same runs `make test` makes (tests/examples), with each step's output.
EXAMPLES := $(patsubst examples/%/README.md,%,$(wildcard examples/*/*/README.md))
# What the examples' runs use: the CLI and its YAML and Java hosts, kubectl, the control
# plane and pulumi-kubernetes (not the data plane, which needs root to install).
EXAMPLE_TOOLS := $(PULUMI) $(PULUMI_LANGUAGE_YAML) $(PULUMI_LANGUAGE_JAVA) $(KUBECTL) $(CONTROL_PLANE_TOOLS) $(PULUMI_KUBERNETES)

.PHONY: example example-name
example: example-name $(EXAMPLE_TOOLS) provider examples-dist ## Run one example's README steps as written: make example EXAMPLE=kubernetes/typescript.
	$(TEST_ENV) go test -count=1 -v -timeout 30m -run '^TestExamples$$/^$(subst /,$$/^,$(EXAMPLE))$$' ./tests/examples/

# Checked before anything is built.
example-name:
	@case ' $(filter-out %/csharp,$(EXAMPLES)) ' in *' $(EXAMPLE) '*) ;; \
		*) echo "EXAMPLE=<group>/<language>, one of: $(filter-out %/csharp,$(EXAMPLES)) (C# has no package to install)" >&2; exit 1;; esac

.PHONY: examples
examples: $(EXAMPLE_TOOLS) provider examples-dist ## Run every example's README steps as written, against local registries and a local control plane.
	$(TEST_ENV) go test -count=1 -timeout 45m -run '^TestExamples$$' -v ./tests/examples/
