# SDK packages as they are published: the npm package, the Python wheel and sdist, and
# the Go SDK module, built from sdk/ into $(DIST) (`make dist-sdks`). The Go SDK is
# published as its own module, sdk/, by the tag sdk/v$(VERSION): $(DIST)/goproxy holds
# that module at that version in a module proxy's layout, so that
# GOPROXY=file://<abs>/$(DIST)/goproxy,https://proxy.golang.org resolves it as users
# resolve the published one.
#
# Each package is built in a copy of its SDK under $(SDK_BUILD), so sdk/ stays as
# `make gen` wrote it, and the copy is stamped with VERSION (stamp-sdk): any VERSION
# builds, whatever version the committed sdk/ was generated for. npm's and pip's
# downloads are cached under $(CACHE), and the archives are reproducible where the
# tools allow: npm pack writes fixed timestamps, and the Python builds take
# SOURCE_DATE_EPOCH (the last commit's time).

SDK_BUILD := $(BIN_DIR)/sdk-build
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 315532800)

# The version the committed sdk/ was generated for, and the files of each SDK that
# name it as `make gen` writes them (the Python package's own version, in PEP 440's
# spelling, is set apart in its pyproject.toml).
SDK_GEN_VERSION := $(shell sed -nE 's/^[[:space:]]*"version": "([^"]+)".*/\1/p' sdk/go/endpoints/pulumi-plugin.json 2>/dev/null | head -n 1)
SDK_VERSION_FILES_nodejs := package.json README.md
SDK_VERSION_FILES_python := README.md pulumi_endpoints/README.md pulumi_endpoints/pulumi-plugin.json
SDK_VERSION_FILES_go     := go/endpoints/README.md go/endpoints/pulumi-plugin.json go/endpoints/internal/pulumiUtilities.go
SDK_VERSION_FILES_java   := README.md pom.xml $(addprefix src/main/resources/com/endpointsprovider/endpoints/,plugin.json version.txt)

# stamp-sdk writes VERSION for the committed version (alone, or after a `v` as in a Go
# module version) in the files of the SDK $(2) copied to $(1), and stops when one of
# them then does not name VERSION or still names the committed version.
sdk_version_re = $(subst +,\+,$(subst .,\.,$(SDK_GEN_VERSION)))
stamp-sdk = [ -n '$(SDK_GEN_VERSION)' ] || { echo "sdk/go/endpoints/pulumi-plugin.json names no version: run make gen" >&2; exit 1; }; \
	cd $(1) && sed -i -E 's/(^|[^0-9A-Za-z.+-]|[^0-9A-Za-z.+-]v)$(sdk_version_re)([^0-9A-Za-z+-]|$$)/\1$(VERSION)\2/g' $(SDK_VERSION_FILES_$(2)) && \
	for f in $(SDK_VERSION_FILES_$(2)); do \
		grep -qF -- '$(VERSION)' "$$f" || { echo "$(1)/$$f does not name version $(VERSION) after stamping" >&2; exit 1; }; \
		[ '$(SDK_GEN_VERSION)' = '$(VERSION)' ] || ! grep -nF -- '$(SDK_GEN_VERSION)' "$$f" >&2 || \
			{ echo "$(1)/$$f still names version $(SDK_GEN_VERSION) after stamping (the lines above)" >&2; exit 1; }; \
	done

# The npm package's name (@endpoints-provider/endpoints) as npm pack spells its file.
NPM_PACKAGE := $(DIST)/endpoints-provider-endpoints-$(VERSION).tgz

# The Python version is VERSION in PEP 440's spelling: a semver prerelease
# 0.5.0-alpha.1 is 0.5.0a1, -beta.N bN, -rc.N rcN, -dev.N .devN; build metadata
# (+abc.1) is a local version. Any other prerelease has no PEP 440 form the SDK reads
# back as VERSION (it asks the engine for the plugin of the version it reads back:
# 0.7.0.dev0 is 0.7.0-dev.0, so a VERSION 0.7.0-dev would ask for a plugin no release
# holds): the build stops and says so.
PYTHON_SDK_VERSION := $(shell echo '$(VERSION)' | sed -E \
	-e 's/^([0-9]+\.[0-9]+\.[0-9]+)-(alpha|a)\.?([0-9]+)/\1a\3/' \
	-e 's/^([0-9]+\.[0-9]+\.[0-9]+)-(beta|b)\.?([0-9]+)/\1b\3/' \
	-e 's/^([0-9]+\.[0-9]+\.[0-9]+)-rc\.?([0-9]+)/\1rc\2/' \
	-e 's/^([0-9]+\.[0-9]+\.[0-9]+)-dev\.?([0-9]+)/\1.dev\2/' | \
	grep -E '^[0-9]+\.[0-9]+\.[0-9]+((a|b|rc)[0-9]+|\.dev[0-9]+)?(\+[A-Za-z0-9]+([.][A-Za-z0-9]+)*)?$$')
PYTHON_VERSION_ERROR := VERSION $(VERSION) has no PEP 440 form the Python SDK reads back as $(VERSION): use X.Y.Z or X.Y.Z-alpha.N, -beta.N, -rc.N, -dev.N (such as 0.7.0-dev.0)
WHEEL := $(DIST)/pulumi_endpoints-$(PYTHON_SDK_VERSION)-py3-none-any.whl
SDIST := $(DIST)/pulumi_endpoints-$(PYTHON_SDK_VERSION).tar.gz

# The Node SDK builds with the versions tests/harness/toolchain pins for every Node program.
node_pin = $(shell sed -nE 's/^[[:space:]]*$(1)[[:space:]]*= "([^"]+)".*/\1/p' tests/harness/toolchain/toolchain.go)
NODE_BUILD_PINS := @pulumi/pulumi@$(call node_pin,PulumiVersion) typescript@$(call node_pin,TypeScriptVersion) \
	@types/node@$(call node_pin,TypesNodeVersion)
NPM_ENV := npm_config_cache=$(CACHE)/npm npm_config_prefer_offline=true npm_config_audit=false \
	npm_config_fund=false npm_config_update_notifier=false npm_config_loglevel=error

# The Python build front end, pinned, in a virtualenv of its own; it builds without
# isolation, so the backend is the pinned setuptools, not whatever PyPI has today.
PYTHON_BUILD_VERSION := 1.6.1
SETUPTOOLS_VERSION   := 84.2.1
PYTHON_BUILD         := $(CACHE)/python-build-$(PYTHON_BUILD_VERSION)-setuptools-$(SETUPTOOLS_VERSION)/bin/python
PIP_ENV := PIP_CACHE_DIR=$(CACHE)/pip PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

NODE_SDK_SOURCES   := $(shell find sdk/nodejs -type f -not -path 'sdk/nodejs/bin/*' -not -path 'sdk/nodejs/node_modules/*' 2>/dev/null)
PYTHON_SDK_SOURCES := $(shell find sdk/python -type f -not -name '*.pyc' -not -path '*.egg-info/*' 2>/dev/null)

# The Go SDK module in a module proxy's layout (cmd/mkgoproxy writes it).
GO_SDK_MODULE   := github.com/endpoints-provider/pulumi-endpoints/sdk
GO_MODULE_PROXY := $(DIST)/goproxy
GO_MODULE_FILES := $(addprefix $(GO_MODULE_PROXY)/$(GO_SDK_MODULE)/@v/,list v$(VERSION).info v$(VERSION).mod v$(VERSION).zip)
GO_SDK_SOURCES  := sdk/go.mod sdk/go.sum $(shell find sdk/go -type f 2>/dev/null)

.PHONY: dist-sdks
dist-sdks: $(NPM_PACKAGE) $(WHEEL) $(SDIST) $(GO_MODULE_FILES) ## Build the SDK packages into DIST: the npm tarball, the Python wheel and sdist, the Go module (DIST/goproxy).

dist: dist-sdks

# The npm package holds the compiled JavaScript and its .d.ts at its root (as Pulumi's
# own SDKs do), with package.json, the README and the LICENSE: users need no TypeScript
# build.
$(NPM_PACKAGE): $(NODE_SDK_SOURCES) LICENSE tests/harness/toolchain/toolchain.go $(BIN_DIR)/.version
	rm -rf $(SDK_BUILD)/nodejs
	mkdir -p $(SDK_BUILD) $(@D)
	cp -R sdk/nodejs $(SDK_BUILD)/nodejs
	@$(call stamp-sdk,$(SDK_BUILD)/nodejs,nodejs)
	cd $(SDK_BUILD)/nodejs && $(NPM_ENV) npm install --no-save --no-package-lock $(NODE_BUILD_PINS)
	cd $(SDK_BUILD)/nodejs && node_modules/.bin/tsc
	cp $(SDK_BUILD)/nodejs/package.json $(SDK_BUILD)/nodejs/README.md LICENSE $(SDK_BUILD)/nodejs/bin/
	cd $(SDK_BUILD)/nodejs/bin && $(NPM_ENV) npm pack --pack-destination $(abspath $(@D)) >/dev/null
	@test -f $@ || { echo "npm pack did not write $@" >&2; exit 1; }

$(PYTHON_BUILD):
	rm -rf $(dir $(@D))
	python3 -m venv $(dir $(@D)) || { echo "python3 -m venv failed (on Debian it needs the python3-venv package)" >&2; exit 1; }
	$(PIP_ENV) $@ -m pip install --quiet build==$(PYTHON_BUILD_VERSION) setuptools==$(SETUPTOOLS_VERSION)

# setuptools writes the files it makes (PKG-INFO, the egg-info) into the sdist, and the
# gzip header, with the build time: the sdist is written again with SOURCE_DATE_EPOCH's
# time, sorted members and no owner, so two builds of the same sources are the same
# bytes (the wheel already is).
define NORMALIZE_SDIST
import gzip, io, sys, tarfile
path, epoch = sys.argv[1], int(sys.argv[2])
with tarfile.open(path) as src:
    members = sorted(src.getmembers(), key=lambda m: m.name)
    files = {m.name: src.extractfile(m).read() for m in members if m.isfile()}
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as out:
    for m in members:
        m.mtime, m.uid, m.gid, m.uname, m.gname, m.pax_headers = epoch, 0, 0, "", "", {}
        out.addfile(m, io.BytesIO(files[m.name]) if m.isfile() else None)
with open(path, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as gz:
    gz.write(buf.getvalue())
endef
export NORMALIZE_SDIST

# python -m build makes the sdist, then the wheel from it: the sdist is known to build.
$(WHEEL) $(SDIST) &: $(PYTHON_SDK_SOURCES) LICENSE $(BIN_DIR)/.version | $(PYTHON_BUILD)
	@[ -n '$(PYTHON_SDK_VERSION)' ] || { echo "$(PYTHON_VERSION_ERROR)" >&2; exit 1; }
	rm -rf $(SDK_BUILD)/python
	mkdir -p $(SDK_BUILD) $(@D)
	cp -R sdk/python $(SDK_BUILD)/python
	@$(call stamp-sdk,$(SDK_BUILD)/python,python)
	cp LICENSE $(SDK_BUILD)/python/
	sed -i -E 's/^([[:space:]]*version = )"[^"]*"/\1"$(PYTHON_SDK_VERSION)"/' $(SDK_BUILD)/python/pyproject.toml
	find $(SDK_BUILD)/python -exec touch -h -d @$(SOURCE_DATE_EPOCH) {} +
	cd $(SDK_BUILD)/python && SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(PIP_ENV) $(PYTHON_BUILD) -m build \
		--no-isolation --outdir $(abspath $(@D)) . >build.log 2>&1 || { cat build.log >&2; exit 1; }
	@test -f $(WHEEL) && test -f $(SDIST) || { echo "python -m build did not write $(WHEEL) and $(SDIST)" >&2; exit 1; }
	$(PYTHON_BUILD) -c "$$NORMALIZE_SDIST" $(SDIST) $(SOURCE_DATE_EPOCH)

# Prints the Python package version for VERSION (make -s python-sdk-version VERSION=...).
.PHONY: python-sdk-version
python-sdk-version:
	@[ -n '$(PYTHON_SDK_VERSION)' ] || { echo "$(PYTHON_VERSION_ERROR)" >&2; exit 1; }
	@echo '$(PYTHON_SDK_VERSION)'

# The Go SDK module: sdk/'s go.mod and go.sum and the SDK under go/, stamped, served at
# v$(VERSION). (The tag's module zip would also carry the other languages' SDKs, which
# no Go program imports.)
$(GO_MODULE_FILES) &: $(GO_SDK_SOURCES) cmd/mkgoproxy/main.go go.sum $(BIN_DIR)/.version $(BIN_DIR)/.source-date-epoch
	rm -rf $(SDK_BUILD)/gomodule
	mkdir -p $(SDK_BUILD)/gomodule
	cp -R sdk/go.mod sdk/go.sum sdk/go $(SDK_BUILD)/gomodule/
	@$(call stamp-sdk,$(SDK_BUILD)/gomodule,go)
	go run ./cmd/mkgoproxy -dir $(SDK_BUILD)/gomodule -version v$(VERSION) -time $(SOURCE_DATE_EPOCH) -out $(GO_MODULE_PROXY)
