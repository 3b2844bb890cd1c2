# The data plane the tests run traffic through: kube-proxy, from the API server's
# module (tools/kube), and CoreDNS, whose version tools/coredns/go.mod pins and whose
# plugins tools/coredns/plugin.cfg lists.

KUBE_PROXY := $(CACHE)/kube-$(KUBE_VERSION)/kube-proxy

$(KUBE_PROXY): | tools/kube/go.mod
	@echo "building kube-proxy $(KUBE_VERSION) (under a minute once kube-apiserver is built)"
	mkdir -p $(@D)
	cd tools/kube && go build -trimpath -ldflags "$(KUBE_LDFLAGS)" -o $@.tmp k8s.io/kubernetes/cmd/kube-proxy
	mv $@.tmp $@

# CoreDNS compiles in the plugins its plugin.cfg lists, through the generators its
# `go generate` runs: the build copies the module's source out of the module cache, puts
# our plugin.cfg in it, generates and builds there with CoreDNS's own go.mod and go.sum.
# The generators run directly (`go generate` would first load, and download, the
# dependencies of every plugin). The directory is keyed by the version and plugin.cfg's
# hash.
COREDNS_VERSION := $(call modver,github.com/coredns/coredns,coredns)
COREDNS_PLUGINS := $(shell sha256sum tools/coredns/plugin.cfg | cut -c1-12)
COREDNS         := $(CACHE)/coredns-$(COREDNS_VERSION)-$(COREDNS_PLUGINS)/coredns

$(COREDNS): | tools/coredns/go.mod tools/coredns/plugin.cfg
	@echo "building coredns $(COREDNS_VERSION) (about 3 minutes)"
	rm -rf $(@D)/src && mkdir -p $(@D)
	cp -R "$$(cd tools/coredns && go mod download -json github.com/coredns/coredns \
		| sed -nE 's/^[[:space:]]*"Dir": "(.*)",?$$/\1/p')" $(@D)/src
	chmod -R u+w $(@D)/src
	cp tools/coredns/plugin.cfg $(@D)/src/plugin.cfg
	cd $(@D)/src && go run directives_generate.go && go run owners_generate.go && go build -trimpath -o $@.tmp .
	mv $@.tmp $@
	rm -rf $(@D)/src

tools: $(KUBE_PROXY) $(COREDNS)

TEST_ENV += TEST_ASSET_KUBE_PROXY=$(KUBE_PROXY) TEST_ASSET_COREDNS=$(COREDNS)

# kube-proxy programs nftables with the `nft` command, and the tests build their network
# namespace with `ip`: Debian's packages, installed when the command is missing.
DATAPLANE_PACKAGES := nft:nftables ip:iproute2

.PHONY: dataplane-packages
dataplane-packages:
	@missing=; for p in $(DATAPLANE_PACKAGES); do \
		PATH="$$PATH:/usr/sbin:/sbin" command -v "$${p%%:*}" >/dev/null || missing="$$missing $${p#*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		echo "installing$$missing with apt-get"; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi

tools: dataplane-packages
