# Quick start: `make run` (installs what is missing, builds, opens the default scene), `make test`.
BUILD   ?= build
ASAN    ?= build-asan
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
ARGS    ?=
CMAKE_FLAGS ?=

.PHONY: all deps build run test test-unit test-asan bench fuzz clean

all: build

deps:
	@sh tools/install-deps.sh

# Configuring again is quick, and it mends a build folder that an interrupted run left behind.
build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/starburst $(ARGS)

bench: build
	./$(BUILD)/starburst bench $(ARGS)

# The whole suite, then the CPU tests again under ASan + UBSan.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) --no-print-directory test-asan

test-asan: deps
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTARBURST_SANITIZE=ON -DSTARBURST_CUDA=OFF $(CMAKE_FLAGS)
	cmake --build $(ASAN) -j $(JOBS)
	cd $(ASAN) && UBSAN_OPTIONS=print_stacktrace=1 \
	    ctest --output-on-failure -j $(JOBS) -L unit

# Fuzzes the TIPSY reader with libFuzzer (clang) for FUZZ_SECONDS; inputs that crash land in
# build-fuzz/artifacts; copy them into tests/fuzz/regressions to keep them as tests.
FUZZ_SECONDS ?= 600
fuzz:
	mkdir -p build-fuzz/corpus build-fuzz/artifacts
	clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -D_DEFAULT_SOURCE \
	    -Isrc src/scene/tipsy.c src/sim/bodies.c tests/fuzz/fuzz_tipsy.c -o build-fuzz/fuzz_tipsy -lm
	cp -n tests/fuzz/regressions/* build-fuzz/corpus/ 2>/dev/null || true
	cd build-fuzz && ./fuzz_tipsy -max_len=2048 -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=artifacts/ \
	    -print_final_stats=1 corpus

clean:
	rm -rf $(BUILD) $(ASAN) build-fuzz
