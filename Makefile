# rmqconsole — the two commands that matter are `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
RMQ_VERSION ?= 5.3.3
export RMQ_VERSION
RMQDEV := $(GO) run ./dev/cmd/rmqdev
VENDOR_SRC := static/vendor-src
VENDOR := static/vendor

.PHONY: run build test test-unit lint generate check-generated bench vendor rocketmq-up rocketmq-down rocketmq-fetch manifests

build:
	$(GO) build -o bin/rmqconsole .

# Without RMQC_NAMESRV, start a local RocketMQ (and demo traffic) and the console against it;
# with it, just the console. Ctrl-C stops everything that was started here within seconds.
# Everything is built first, so no compiler output lands after the console's "ready" line,
# and nothing else does either: the demo is quiet and the console logs only failures and
# slow requests. V=1 brings the chatter back: the demo says what it does
# (RMQC_DEMO_VERBOSE=1) and the console logs every request (RMQC_LOG_LEVEL=debug).
RUN_VERBOSE = $(if $(filter-out 0,$(V)),RMQC_DEMO_VERBOSE=1 RMQC_LOG_LEVEL=$${RMQC_LOG_LEVEL:-debug})
run: build
ifeq ($(strip $(RMQC_NAMESRV)),)
	$(GO) build -o bin/rmqdev ./dev/cmd/rmqdev
	$(if $(wildcard dev/demo/go.mod),$(GO) build -C dev/demo -o $(CURDIR)/bin/rmqdemo .)
	$(RUN_VERBOSE) ./bin/rmqdev run $(if $(wildcard dev/demo/go.mod),--also ./bin/rmqdemo) -- ./bin/rmqconsole
else
	$(RUN_VERBOSE) ./bin/rmqconsole
endif

generate:
	$(GO) tool templ generate

# Generated templ code is committed; this fails when it is stale or unformatted.
check-generated:
	$(GO) tool templ generate
	git diff --exit-code -- '*_templ.go'
	$(GO) tool templ fmt -fail .

lint:
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	@# go.mod and go.sum say exactly what the code imports (run `go mod tidy` when this fails).
	$(GO) mod tidy -diff
	cd dev/demo && $(GO) mod tidy -diff
	cd deploy && $(GO) vet ./... && $(GO) mod tidy -diff

# Packages whose integration tests run rocketmq-client-go push consumers inside the test
# binary: that library has data races of its own (ConsumerRunningInfo encoding, seen
# when the broker forwards our running-info request), so their integration tests run
# without -race; their unit tests, and every other package, run with it.
CLIENT_GO_PKGS := rocketmq|resets|topics|deadletters|sqlfilter

# The tests that start private clusters of their own (dev.RequirePrivateCluster: frozen,
# killed and restarted brokers, a second console cluster), with the dev package's own
# tests and groups, whose watcher tests need real consumers that get the CPU, run first.
# Once they are over, `.ci/run` starts its second lane's cluster beside the rest of make
# test, which may start no cluster of its own: there RMQC_TEST_PRIVATE=off makes
# dev.RequirePrivateCluster fail a test not named here.
PRIVATE_TESTS := TestTwoClustersAtOnce|TestKilledBrokerIsNamedByEveryList|TestFrozenBrokerOnMetrics|TestFrozenBrokerGroupList|TestFrozenBrokerStartupReconciler|TestHeavyQueriesCapped|TestPreviewWithAFrozenThenKilledBrokerOnARealCluster|TestResetsGoOnlyToMastersOnARealCluster|TestReadsFallBackToTheSlaveOfAFrozenMaster|TestFrozenThenKilledBrokerOnARealCluster|TestClusterSwitch|TestMessagesLostWhenTheBrokerDeletesWhatAGroupHasNotRead|TestSlaveBehindItsMasterWhileFrozen|TestGroupListOfTenThousandGroupsOnARealBroker
PRIVATE_PKGS := e2e|lookup|server|resets|diagnosis
EARLY_PKGS := dev|groups

# Everything: lint, generated code, unit + integration (real RocketMQ) + HTTP + browser tests.
# Test packages run one at a time (-p 1): several start a private cluster of their own
# and the browser tests run Chromium, and on a 2-core machine running them side by side
# starved the groups watcher's real consumers of CPU without making the run shorter.
# The browser tests (e2e/, once their private-cluster tests are over) are the exception:
# they spend most of their quarter of an hour waiting on pages and live updates, so they
# run beside the other race-checked packages, their output shown when both are over.
# The client-go integration tests are the exception: they mostly wait on the broker and
# on consumers, use names of their own, and run two packages at a time, as they do on 4.9.7;
# but rocketmq/'s run alone first: its consumers in the test binary count every
# redelivery after an online reset, and on a loaded machine one of them fell behind.
# Within a package, integration tests that mark themselves parallel (those of rocketmq/
# and resets/: each waits up to a minute on consumers of its own) run six at a time.
# One shared cluster serves every test package (RMQC_TEST_NAMESRV), with one RocketMQ Proxy
# in front of it for the gRPC tests (RMQC_TEST_PROXY, RMQC_TEST_PROXY_GRPC) instead of one
# per test binary; both are stopped afterwards if this started them. A RocketMQ of this
# version already running from `make run` or `rmqdev up` is used and left running (without
# a Proxy of its own, each test binary that needs one starts it); anything else holding the
# fixed ports stops the run before any test, saying what to do. RMQ_PORT_BASE=N runs it all
# on the loopback ports N..N+18 instead (see rmqdev's --port-base).
test: lint check-generated
	@set -o pipefail; \
	unset RMQC_TEST_POSTGRES; \
	started=0; \
	if [ -z "$$RMQC_TEST_NAMESRV" ]; then \
	  if env=$$($(RMQDEV) status 2>/dev/null) && grep "^RocketMQ $(RMQ_VERSION): running" <<<"$$env" >/dev/null; then \
	    echo "make test: using the RocketMQ $(RMQ_VERSION) already running (rmqdev status); it stays up afterwards"; \
	  else \
	    env=$$($(RMQDEV) up --proxy) || { echo "make test: no local RocketMQ could start (above). Stop what holds the ports (rmqdev status / down), or run the tests against a running cluster: RMQC_TEST_NAMESRV=host:port make test"; exit 1; }; \
	    started=1; \
	  fi; \
	  export RMQC_TEST_NAMESRV=$$(sed -n 's/^RMQC_NAMESRV=//p' <<<"$$env"); \
	  proxy=$$(sed -n 's/^RMQC_PROXY=//p' <<<"$$env"); \
	  if [ -n "$$proxy" ]; then export RMQC_TEST_PROXY=$$proxy RMQC_TEST_PROXY_GRPC=$$(sed -n 's/^RMQDEV_PROXY_GRPC=//p' <<<"$$env"); fi; \
	fi; \
	run() { \
	  $(GO) test -p 1 -parallel 6 -race -count=1 -timeout 25m $(addprefix ./,$(subst |, ,$(EARLY_PKGS))) || return; \
	  $(GO) test -p 1 -race -count=1 -timeout 25m -run '^($(PRIVATE_TESTS))$$' $(addprefix ./,$(subst |, ,$(PRIVATE_PKGS))) || return; \
	  echo "make test: the tests with private clusters are over; the rest start no cluster"; \
	  export RMQC_TEST_PRIVATE=off; \
	  e2e_log=$$(mktemp); \
	  $(GO) test -race -count=1 -timeout 25m -skip '^($(PRIVATE_TESTS))$$' ./e2e/ >$$e2e_log 2>&1 & e2e=$$!; \
	  $(GO) test -p 1 -race -count=1 -timeout 25m -skip '^($(PRIVATE_TESTS))$$' $$($(GO) list ./... | grep -v -E '/($(CLIENT_GO_PKGS)|$(EARLY_PKGS)|e2e)$$'); rc=$$?; \
	  wait $$e2e || rc=1; cat $$e2e_log; rm -f $$e2e_log; \
	  [ $$rc = 0 ] || return $$rc; \
	  (cd deploy && $(GO) test -count=1 -timeout 5m ./...) || return; \
	  $(GO) test -race -count=1 -timeout 10m -skip '^TestIntegration|^($(PRIVATE_TESTS))$$' $(addprefix ./,$(subst |, ,$(CLIENT_GO_PKGS))) || return; \
	  echo "make test: every race-checked test passed; the integration tests of $(subst |, ,$(CLIENT_GO_PKGS)) follow, without -race"; \
	  $(GO) test -parallel 6 -count=1 -timeout 20m -run '^TestIntegration' ./rocketmq/ || return; \
	  $(GO) test -p 2 -parallel 6 -count=1 -timeout 20m -run '^TestIntegration' $(addprefix ./,$(subst |, ,$(subst rocketmq|,,$(CLIENT_GO_PKGS)))); \
	}; \
	run; rc=$$?; \
	if [ $$started = 1 ]; then $(RMQDEV) down; fi; \
	exit $$rc

# Unit tests only: no JDK, no Chromium, no RocketMQ, no PostgreSQL, no fixed port; well
# under a minute. The database suites run on SQLite alone here (RMQC_TEST_POSTGRES=off):
# their PostgreSQL cases took most of this target's time, and `make test` runs every one
# of them on both databases. Most of what is left is linking some thirty test binaries
# and the tests that wait rather than compute (several consoles sharing one database,
# password hashing, in store and server): go test links and runs packages in the order
# given, so those two go first and wait while the others are linked; the deploy module's
# chart test runs beside them. e2e is left out: every test there drives the real binary
# or Chromium and skips under -short.
UNIT_FIRST := ./store/ ./server/
test-unit:
	@set -o pipefail; export RMQC_TEST_POSTGRES=off; \
	(cd deploy && $(GO) test -count=1 -short ./...) & deploy=$$!; \
	$(GO) test -count=1 -short $(UNIT_FIRST) $$($(GO) list ./... | grep -v '/e2e$$'); rc=$$?; \
	wait $$deploy || rc=1; \
	exit $$rc

# The plain Kubernetes manifests in deploy/manifests/, rendered from the Helm chart (a test
# fails while the committed ones differ from a fresh render).
manifests:
	cd deploy && $(GO) run ./cmd/render-manifests

bench:
	@./dev/bench.sh

rocketmq-fetch:
	$(RMQDEV) fetch

rocketmq-up:
	$(RMQDEV) up

rocketmq-down:
	$(RMQDEV) down

# Refresh the vendored front-end libraries (needs npm; building and testing never do).
vendor:
	cd $(VENDOR_SRC) && npm ci --ignore-scripts --no-audit --no-fund
	cp $(VENDOR_SRC)/node_modules/htmx.org/dist/htmx.min.js $(VENDOR)/htmx.min.js
	cp $(VENDOR_SRC)/node_modules/htmx-ext-ws/dist/ws.min.js $(VENDOR)/htmx-ext-ws.min.js
	cp $(VENDOR_SRC)/node_modules/uplot/dist/uPlot.iife.min.js $(VENDOR)/uPlot.iife.min.js
	cp $(VENDOR_SRC)/node_modules/uplot/dist/uPlot.min.css $(VENDOR)/uPlot.min.css
	cp $(VENDOR_SRC)/node_modules/@picocss/pico/css/pico.min.css $(VENDOR)/pico.min.css
	cd $(VENDOR) && sha256sum *.js *.css > SHA256SUMS
	rm -rf $(VENDOR_SRC)/node_modules
