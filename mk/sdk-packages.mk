# SDK packages as they are published: the npm package and the Python wheel and sdist,
# built from sdk/ into dist/ (`make dist-sdks`). The Go SDK is published as its own
# module, sdk/, by the tag sdk/v$(VERSION); it needs no build.
#
# Each package is built in a copy of its SDK under $(SDK_BUILD), so sdk/ stays as
# `make gen` wrote it. npm's and pip's downloads are cached under $(CACHE), and the
# archives are reproducible where the tools allow: npm pack writes fixed timestamps,
# and the Python builds take SOURCE_DATE_EPOCH (the last commit's time).

SDK_BUILD := $(BIN_DIR)/sdk-build
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 315532800)

# The npm package's name (@endpoints-provider/endpoints) as npm pack spells its file.
NPM_PACKAGE := dist/endpoints-provider-endpoints-$(VERSION).tgz

# The Python version is VERSION in PEP 440's spelling: a semver prerelease
# 0.5.0-alpha.1 is 0.5.0a1, -beta.N bN, -rc.N rcN, -dev.N .devN; build metadata
# (+abc.1) is a local version. Any other prerelease has no PEP 440 form: the build
# stops and says so.
PYTHON_SDK_VERSION := $(shell echo '$(VERSION)' | sed -E \
	-e 's/^([0-9]+\.[0-9]+\.[0-9]+)-(alpha|a)\.?([0-9]+)/\1a\3/' \
	-e 's/^([0-9]+\.[0-9]+\.[0-9]+)-(beta|b)\.?([0-9]+)/\1b\3/' \
	-e 's/^([0-9]+\.[0-9]+\.[0-9]+)-rc\.?([0-9]+)/\1rc\2/' \
	-e 's/^([0-9]+\.[0-9]+\.[0-9]+)-dev\.?([0-9]+)/\1.dev\2/' | \
	grep -E '^[0-9]+\.[0-9]+\.[0-9]+((a|b|rc)[0-9]+|\.dev[0-9]+)?(\+[A-Za-z0-9]+([.][A-Za-z0-9]+)*)?$$')
WHEEL := dist/pulumi_endpoints-$(PYTHON_SDK_VERSION)-py3-none-any.whl
SDIST := dist/pulumi_endpoints-$(PYTHON_SDK_VERSION).tar.gz

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

.PHONY: dist-sdks
dist-sdks: $(NPM_PACKAGE) $(WHEEL) $(SDIST) ## Build the SDK packages into dist/: the npm tarball, the Python wheel and sdist.

dist: dist-sdks

# sdk-version-check: the SDK under $(1) names the plugin version $(2); otherwise it was
# generated for another version than VERSION.
sdk-version-check = v=$$(sed -nE 's/^[[:space:]]*"version": "([^"]+)".*/\1/p' $(1) | head -n 1); \
	[ "$$v" = '$(2)' ] || { echo "$(1) is for version $$v, VERSION is $(2): run make gen" >&2; exit 1; }

# The npm package holds the compiled JavaScript and its .d.ts at its root (as Pulumi's
# own SDKs do), with package.json, the README and the LICENSE: users need no TypeScript
# build.
$(NPM_PACKAGE): $(NODE_SDK_SOURCES) LICENSE tests/harness/toolchain/toolchain.go $(BIN_DIR)/.version
	@$(call sdk-version-check,sdk/nodejs/package.json,$(VERSION))
	rm -rf $(SDK_BUILD)/nodejs
	mkdir -p $(SDK_BUILD) $(@D)
	cp -R sdk/nodejs $(SDK_BUILD)/nodejs
	cd $(SDK_BUILD)/nodejs && $(NPM_ENV) npm install --no-save --no-package-lock $(NODE_BUILD_PINS)
	cd $(SDK_BUILD)/nodejs && node_modules/.bin/tsc
	cp sdk/nodejs/package.json sdk/nodejs/README.md LICENSE $(SDK_BUILD)/nodejs/bin/
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
	@[ -n '$(PYTHON_SDK_VERSION)' ] || { echo "VERSION $(VERSION) has no PEP 440 form: use X.Y.Z or X.Y.Z-alpha.N, -beta.N, -rc.N, -dev.N" >&2; exit 1; }
	@$(call sdk-version-check,sdk/python/pulumi_endpoints/pulumi-plugin.json,$(VERSION))
	rm -rf $(SDK_BUILD)/python
	mkdir -p $(SDK_BUILD) $(@D)
	cp -R sdk/python $(SDK_BUILD)/python
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
	@[ -n '$(PYTHON_SDK_VERSION)' ] || { echo "VERSION $(VERSION) has no PEP 440 form" >&2; exit 1; }
	@echo '$(PYTHON_SDK_VERSION)'
