# kubesim — the two commands a newcomer needs are `make demo` and `make test`.
GO      ?= go
PKGS    ?= ./...
BENCH   ?= .
MODULE  := github.com/kubesim/kubesim
# A race-enabled `go test` of everything; CI runs exactly this through .ci/run.
TESTFLAGS ?= -race -count=1 -timeout 20m

# generate: the DeepCopy of kubesim's own API types (k8s.io/code-generator's
# deepcopy-gen, run as a Go tool; see api/doc.go).
.PHONY: all build install generate generate-check test test-product test-kubectl test-scenarios test-e2e test-steward test-cni test-coscheduling conformance conformance-serial conformance-slice bench demo page-shots lint fmt vet fuzz clean tools

all: build

build:
	$(GO) build -o bin/kubesim ./cmd/kubesim

# install puts kubesim where your shell finds it, as `go install` does: in
# $(go env GOBIN), else $(go env GOPATH)/bin (add that directory to PATH);
# `make install PREFIX=/usr/local` puts it in /usr/local/bin instead.
PREFIX ?=
install:
ifeq ($(PREFIX),)
	$(GO) install ./cmd/kubesim
	@dir=$$($(GO) env GOBIN); echo "kubesim installed in $${dir:-$$($(GO) env GOPATH)/bin}"
else
	$(GO) build -o $(DESTDIR)$(PREFIX)/bin/kubesim ./cmd/kubesim
	@echo "kubesim installed in $(DESTDIR)$(PREFIX)/bin"
endif

generate:
	$(GO) generate ./api/

# The generated DeepCopy is what deepcopy-gen writes for the types as they
# are now (about 25 s: deepcopy-gen loads the api package and its imports).
generate-check: generate
	@git diff --exit-code -- api/zz_generated.deepcopy.go || { echo "api/zz_generated.deepcopy.go was stale: run make generate and commit it"; exit 1; }

# Tools the tests drive: kubectl (on every machine), a real etcd for
# store/etcdstore (Debian's etcd-server), headless Chromium for the web
# page's browser tests, script(1) for `kubectl exec -it` under a
# terminal and a real Prometheus scraping /metrics (e2e/prometheus) —
# installed here when missing and root may; .ci/run does the same.
tools:
	@command -v etcd >/dev/null || { [ "$$(id -u)" = 0 ] && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server) >/dev/null; } || { echo "etcd is needed by store/etcdstore's tests: apt-get install etcd-server"; exit 1; }
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null; } || { echo "chromium is needed by e2e/browser's tests: apt-get install chromium"; exit 1; }
	@command -v script >/dev/null || { [ "$$(id -u)" = 0 ] && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bsdutils) >/dev/null; } || { echo "script(1) is needed by the kubectl exec -it test: apt-get install bsdutils"; exit 1; }
	@command -v prometheus >/dev/null || { [ "$$(id -u)" = 0 ] && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus) >/dev/null; } || { echo "prometheus is needed by e2e/prometheus's test: apt-get install prometheus"; exit 1; }

test: tools vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	@# Compile every package once, race-enabled, before the suites start:
	@# three go commands started together on a cold cache would each
	@# compile the packages they share (the build cache shares results, not work in progress).
	$(GO) build -race ./...
	@$(MAKE) --no-print-directory -j6 -Otarget test-kubectl test-scenarios test-product test-e2e test-steward test-cni test-coscheduling generate-check

# The suites are independent and mostly wait (on kubectl, on timeouts),
# so `make test` runs them side by side; -Otarget prints each suite's
# output in one piece when it ends. The two longest packages — the kubectl
# suite in cmd/kubesim and the golden scenarios — get suites of their own
# so that they start first instead of when `go test ./...` reaches them.
test-product:
	@# apiserver/kinds' round trip of every field of every kind took 281 s
	@# alone at load 20 under -race, and reached the 20-minute limit when
	@# two make tests shared the machine: the product's packages get 40.
	$(GO) test $(TESTFLAGS) -timeout 40m $$($(GO) list $(PKGS) | grep -v -x -e '$(MODULE)/cmd/kubesim' -e '$(MODULE)/examples/scenarios')
	@# Damaged data files must never crash the store: its fuzz target, whose
	@# seed corpus every go test runs, also fuzzes for 20 s here: 22.5 s
	@# added to make test in all once the build cache holds its instrumented
	@# build (at most 30 s; the very first build takes minutes more).
	$(GO) test -run '^$$' -fuzz FuzzDamagedDataFile -fuzztime 20s ./store/boltstore/

# These two run beside everything else for the whole of `make test`, so
# their packages get a longer limit than go test's 20 minutes below: the
# kubectl suite took 35 minutes on a fresh clone at load 20 (11 when idle),
# and a package limit only ends a slow run, it finds no failure.
test-kubectl:
	$(GO) test $(TESTFLAGS) -timeout 60m ./cmd/kubesim

test-scenarios:
	$(GO) test $(TESTFLAGS) -timeout 60m ./examples/scenarios

test-e2e:
	@if [ -f e2e/go.mod ]; then echo "== e2e: real Go clients (client-go, controller-runtime, k8s.io/api), the web page in Chromium, a real Prometheus scraping /metrics"; cd e2e && $(GO) test $(TESTFLAGS) ./...; fi

# The kubebuilder-style operator and its envtest suite against kubesim
# serve (no -race: its cold race build alone takes 6 minutes).
test-steward:
	@echo "== examples/steward-operator"
	cd examples/steward-operator && $(GO) test -count=1 -timeout 10m ./...

# The course's mock CNI plugin and its Ginkgo suite (a small module of its
# own, as a plugin author's would be).
test-cni:
	@echo "== examples/cni"
	cd examples/cni && $(GO) test -count=1 ./...

# The sample out-of-tree scheduler plugin (co-scheduling by Permit), a
# module of its own built against this one, as a plugin author's would be.
test-coscheduling:
	@echo "== examples/coscheduling"
	cd examples/coscheduling && $(GO) test -count=1 ./...

vet:
	$(GO) vet $(PKGS)
	@if [ -f e2e/go.mod ]; then cd e2e && $(GO) vet ./...; fi
	cd examples/steward-operator && $(GO) vet ./...
	cd examples/cni && $(GO) vet ./...
	cd examples/coscheduling && $(GO) vet ./...

lint: vet
	@gofmt -l . | tee /dev/stderr | (! read -r _)

fmt:
	gofmt -w .

# Kubernetes' own conformance suite (the [Conformance] specs of
# k8s.io/kubernetes/test/e2e v1.32.4) against a fresh kubesim serve built
# from this tree; rewrites its section of docs/conformance.md. Tens of
# minutes; the first run also builds e2e.test (minutes of CPU, cached in
# ~/.cache/kubesim/conformance). conformance-serial runs the [Serial] specs.
# CONFORMANCE_FLAGS passes more, e.g. -procs 4 or -focus 'sig-apps'.
conformance:
	nice -n 19 $(GO) run ./hack/conformance $(CONFORMANCE_FLAGS)

conformance-serial:
	nice -n 19 $(GO) run ./hack/conformance -serial $(CONFORMANCE_FLAGS)

# The fast slice of the conformance suite (hack/conformance/slice): a few
# upstream specs that pass today, from a test binary of the e2e framework
# and two SIG packages instead of all of e2e.test. A minute once compiled,
# but its first compile costs 15 CPU-minutes, nearly what e2e.test's does
# (docs/conformance.md), so it is not yet part of make test.
conformance-slice:
	cd hack/conformance/slice && $(GO) vet ./...
	nice -n 19 $(GO) run ./hack/conformance -slice

# Benchmarks print figures; none of them asserts a time. See docs/performance.md.
# The live control-plane runs take a few minutes (10,000 pods on 1,000 nodes)
# and up to an hour (100,000 on 5,000). The last line compares custom-resource
# creates with the real apiextensions-apiserver over etcd in the same run (it
# builds the real server once, ~7 minutes, and skips with a message without etcd).
# The 100,000-pod run has a watchdog: past 6 GiB of heap it ends, leaving a
# goroutine dump and a heap profile in the temporary directory
# (kubesim-watchdog.*), instead of letting a runaway take the machine
# (cluster/watchdog_bench_test.go).
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime 2s ./store/... ./apiserver/... ./scheduler/...
	$(GO) test -run '^$$' -bench 'Live.*(1000PodsOn100|10000PodsOn1000)Nodes$$' -benchtime 1x -timeout 30m ./cluster/
	$(GO) test -run '^$$' -bench 'Live.*100000PodsOn5000Nodes$$' -benchtime 1x -timeout 90m ./cluster/ -watchdog-heap-mib 6144 -watchdog-every 30s
	$(GO) test -run '^$$' -bench 'ReplacementLatency' -benchtime 40x ./cluster/
	$(GO) test -run '^$$' -bench 'ClusterNewToReady' -benchtime 10x ./cluster/
	$(GO) test -run '^$$' -bench 'ServeToReady|Robustness' -benchtime 1x ./cmd/kubesim/
	$(GO) test -run '^$$' -bench 'KubectlGetPodsAll' -benchtime 1x -timeout 30m ./cmd/kubesim/
	cd e2e && $(GO) test -run '^$$' -bench SideBySide -benchtime 1x -timeout 60m ./realstack/

demo: build
	./bin/kubesim demo

# page-shots takes the web page's screenshots in docs/page again (the demo,
# then a Deployment of 30 replicas, at 1400x900 and 1920x1080, in English
# and Chinese: e2e/browser's TestPageLayout). The Chinese ones need a CJK
# font (Debian's fonts-wqy-microhei, installed here when missing and root may).
page-shots:
	@fc-list :lang=zh | grep -q . || { [ "$$(id -u)" = 0 ] && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-wqy-microhei) >/dev/null; } || { echo "the Chinese screenshots need a CJK font: apt-get install fonts-wqy-microhei"; exit 1; }
	cd e2e && KUBESIM_PAGE_SHOTS=$(CURDIR)/docs/page $(GO) test -count=1 -run '^TestPageLayout$$' ./browser/

clean:
	rm -rf bin .data
