# The Kubernetes minors the provider supports, each tested: `make test-minors` runs the
# differential and lifecycle tests once per minor, with TEST_ASSET_KUBE_APISERVER_OLDEST
# naming that minor's kube-apiserver (the tests run over the newest control plane and
# that API server). Not part of `make test`, which tests both ends of the window.
#
# One release per minor, the newest patch the Go module proxy serves: on 2026-11-28 it
# listed v1.32.13, v1.33.13, v1.34.4, v1.35.4, v1.36.3 and v1.37.2 as the newest of
# their minors, and each downloaded. The ends are the versions tools/kube-oldest and
# tools/kube pin. KUBE_MINORS=v1.35.4 tests one.
KUBE_MINORS ?= $(KUBE_OLDEST_VERSION) v1.33.13 v1.34.4 v1.35.4 v1.36.3 $(KUBE_VERSION)

# Flags for go test, e.g. MINORS_TEST_FLAGS='-run TestLifecycleOnBothEnds'.
MINORS_TEST_FLAGS ?=
# Each minor's build and test output.
MINORS_LOGS := build/test-minors

# The kube-apiserver of a release that no tools module pins, from a module
# tools/kube-minor.sh generates (the explicit rules of $(KUBE_APISERVER) and
# $(KUBE_APISERVER_OLDEST) come first).
$(CACHE)/kube-%/kube-apiserver: | tools/kube-minor.sh
	@echo "building kube-apiserver $* in a generated module (about 3 minutes, its modules downloaded first)"
	tools/kube-minor.sh $* $@ "$(call kube_ldflags,$*)"

.PHONY: test-minors
test-minors: $(ETCD) $(KUBE_APISERVER) $(KUBE_CONTROLLER_MANAGER) ## Run the differential and lifecycle tests against each Kubernetes minor supported (KUBE_MINORS); not part of `make test`.
	@mkdir -p $(MINORS_LOGS)
	@summary=; failed=0; \
	for v in $(KUBE_MINORS); do \
		log=$(MINORS_LOGS)/$$v.log; bin=$(CACHE)/kube-$$v/kube-apiserver; began=$$(date +%s); \
		echo "== $$v: building $$bin if missing, then testing (output in $$log)"; \
		if ! $(MAKE) --no-print-directory $$bin >$$log 2>&1; then \
			result="FAIL (build of kube-apiserver)"; \
		elif $(TEST_ENV) TEST_ASSET_KUBE_APISERVER_OLDEST=$$bin go test -count=1 -timeout 60m $(MINORS_TEST_FLAGS) \
			./tests/differential/... ./tests/lifecycle/... >>$$log 2>&1; then \
			result=pass; \
		else \
			result="FAIL (tests)"; \
		fi; \
		line="$$v: $$result in $$(( $$(date +%s) - began ))s ($$log)"; \
		echo "$$line"; summary="$$summary$$line"$$'\n'; \
		case $$result in pass) ;; *) failed=1; tail -n 20 $$log;; esac; \
	done; \
	echo "== test-minors:"; printf '%s' "$$summary"; exit $$failed
