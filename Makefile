# blockkit front door. CMake does the build; these targets are the short way in.
BUILD      ?= build
SAN_BUILD  ?= build-sanitize
CLANG_BUILD?= build-clang
FUZZ_BUILD ?= build-fuzz
PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 20

DEPS_BIN = cmake pkg-config cc
DEPS_PKG = cmake pkg-config gcc libsecp256k1-dev zstd libleveldb-dev libzstd-dev libsnappy-dev libgmp-dev libssl-dev
# Test-only readers/oracles from the npm registry (tests/npm/package.json, installed into
# tests/npm/node_modules, ignored by git). Building and running blockkit never needs them.
NPM_DIR = tests/npm
# With WITH_FUZZ=1 (CI): clang for the fuzzers and test-clang, valgrind for the
# memcheck tests of the portable SHA-256 path (tests/valgrind.test.cmake).
FUZZ_PKG = clang libclang-rt-14-dev valgrind
# Optional: the Electrum wallet (tests/electrum/wallet.sh drives it headless against
# blockkit electrum; skipped without it). Installed without its recommends (no Qt);
# a failure to install it does not fail `make deps`.
PEER_PKG = electrum
# Cross toolchain + qemu: the ARMv8 SHA-256 backend's tests run under qemu-aarch64.
CROSS_PKG = gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user

.PHONY: all build cli run test test-sanitize test-clang bench fuzz fuzz-smoke install deps deps-npm deps-check deps-test clean

all: build

# Install missing Debian packages (as root), or print the exact command.
deps:
	@missing=""; optional=""; \
	for p in $(DEPS_PKG) $(if $(WITH_FUZZ),$(FUZZ_PKG)) $(if $(WITH_CROSS),$(CROSS_PKG)); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; \
	done; \
	for p in $(PEER_PKG); do dpkg -s $$p >/dev/null 2>&1 || optional="$$optional $$p"; done; \
	if [ -z "$$missing$$optional" ]; then $(MAKE) --no-print-directory deps-npm; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "installing:$$missing$$optional"; \
	  (apt-get update -qq || true) && \
	  { [ -z "$$missing" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; } && \
	  { [ -z "$$optional" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$optional \
	    || echo "optional packages not installed:$$optional (the tests that need them are skipped)"; } && \
	  $(MAKE) --no-print-directory deps-npm; \
	elif [ -n "$$missing" ]; then \
	  echo "missing Debian packages; run:"; echo "  sudo apt-get install -y$$missing$$optional"; exit 1; \
	else \
	  echo "optional (the Electrum wallet test):" \
	    "sudo apt-get install -y --no-install-recommends$$optional"; \
	fi

# npm test tools (exact versions from package-lock.json); needs node + npm (nodejs, npm).
deps-npm:
	@if [ -f $(NPM_DIR)/node_modules/.package-lock.json ] && \
	   cmp -s $(NPM_DIR)/package-lock.json $(NPM_DIR)/.installed-lock 2>/dev/null; then exit 0; fi; \
	if ! command -v npm >/dev/null 2>&1; then \
	  echo "npm not found: the Parquet/SSZ reader tests need node 20 + npm (apt-get install nodejs npm)"; exit 1; fi; \
	echo "installing test tools into $(NPM_DIR)/node_modules"; \
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json .installed-lock

# Call `make deps` only when something the build needs is missing (the npm
# test tools are not: `make build` and `make install` work without node).
deps-check:
	@ok=1; for b in $(DEPS_BIN) zstd; do command -v $$b >/dev/null 2>&1 || ok=0; done; \
	pkg-config --exists libsecp256k1 libzstd snappy gmp openssl 2>/dev/null || ok=0; \
	[ -f /usr/include/leveldb/c.h ] || ok=0; \
	[ $$ok = 1 ] || $(MAKE) --no-print-directory deps

# The tests also need the npm test tools: installed when absent. After
# deps-check (order-only): under `make -jN` the two would otherwise run
# `npm ci` at the same time when deps-check has to call `make deps`. The
# tests that use the tools are registered whether or not they are present
# (configure may well run first): they fail, never vanish, without them.
deps-test: | deps-check
	@[ -f $(NPM_DIR)/node_modules/.package-lock.json ] || $(MAKE) --no-print-directory deps-npm

# Configure only once the packages are in place: deps-check is order-only,
# so under `make -jN` configure waits for it (and for the `make deps` it
# may start) instead of racing it, yet a present cache is not redone. A
# failed configure leaves no cache behind, so the next make configures again.
$(BUILD)/CMakeCache.txt: | deps-check
	@echo "configuring $(BUILD) (cmake's output: $(BUILD)/configure.log)"; mkdir -p $(BUILD); \
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release > $(BUILD)/configure.log 2>&1 \
	  || { cat $(BUILD)/configure.log; rm -f $@; exit 1; }

build: deps-check $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# `make cli` builds only the CLI, its output in $(BUILD)/make-cli.log (the
# tail shown when it fails). MAKEFLAGS=--no-print-directory: cmake's own
# make, started from this one, would print a directory line per step.
cli: deps-check $(BUILD)/CMakeCache.txt
	@log=$(BUILD)/make-cli.log; echo "building $(BUILD)/blockkit, the CLI only (cmake's output: $$log)"; \
	MAKEFLAGS=--no-print-directory cmake --build $(BUILD) -j $(JOBS) --target blockkit > $$log 2>&1 \
	  || { tail -n 30 $$log; echo "the build failed (all of its output: $$log)"; exit 1; }

# `make run` builds only what it runs (the CLI), then scripts/run-main.sh.
run: cli
	@./scripts/run-main.sh $(BUILD)/blockkit

test: build deps-test
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-sanitize: deps-check deps-test
	cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DBK_SANITIZE=ON
	cmake --build $(SAN_BUILD) -j $(JOBS)
	cd $(SAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  BLOCKKIT_SANITIZE=1 ctest --output-on-failure -j $(JOBS)

test-clang: deps-check deps-test
	CC=clang cmake -S . -B $(CLANG_BUILD) -DCMAKE_BUILD_TYPE=Release -DBK_WERROR=ON
	cmake --build $(CLANG_BUILD) -j $(JOBS)
	cd $(CLANG_BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	$(BUILD)/blockkit bench $(BENCH_ARGS)

fuzz:
	@$(MAKE) --no-print-directory deps-check
	@$(MAKE) --no-print-directory deps WITH_FUZZ=1
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBK_FUZZ=ON \
	  -DBK_SANITIZE=ON -DBK_BUILD_TESTS=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS)

fuzz-smoke: fuzz
	./scripts/fuzz-smoke.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

install: build
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(CLANG_BUILD) $(FUZZ_BUILD)
