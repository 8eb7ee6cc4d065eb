# Quick start: `make run` (installs what is missing, builds, opens the default scene), `make test`.
BUILD   ?= build
ASAN    ?= build-asan
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
ARGS    ?=
CMAKE_FLAGS ?=

.PHONY: all deps build run test test-unit test-asan bench python fuzz clean

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

# The Python package, installed into a virtual environment beside the build that sees the system's
# numpy (Debian's Python takes packages from apt alone); nothing is fetched. It finds the library
# of this build through STARBURST_LIB.
python: build
	/usr/bin/python3 -m venv --system-site-packages $(BUILD)/venv
	$(BUILD)/venv/bin/pip install --no-build-isolation --no-index --no-deps --quiet ./python
	@echo "STARBURST_LIB=$(CURDIR)/$(BUILD)/libstarburst.so.0 $(BUILD)/venv/bin/python -c 'import starburst'"

# The whole suite, then the CPU tests again under ASan + UBSan.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) --no-print-directory test-asan

test-asan: deps
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTARBURST_SANITIZE=ON -DSTARBURST_CUDA=OFF $(CMAKE_FLAGS)
	cmake --build $(ASAN) -j $(JOBS)
	cd $(ASAN) && UBSAN_OPTIONS=print_stacktrace=1 \
	    ctest --output-on-failure -j $(JOBS) -L unit

# Fuzzes a reader with libFuzzer (clang) for FUZZ_SECONDS: FUZZ_TARGET=tipsy (the default),
# hdf5 (HDF5 snapshots; its seeds are small exports) or serve (the served page's messages). Inputs
# that crash land in build-fuzz/artifacts-$(FUZZ_TARGET); copy them into tests/fuzz/regressions
# (TIPSY), tests/fuzz/regressions-hdf5 or tests/fuzz/regressions-serve to keep them as tests.
FUZZ_SECONDS ?= 600
FUZZ_TARGET ?= tipsy
# Extra libFuzzer flags: "-fork=1 -ignore_crashes=1" goes on past crashes inside libhdf5 itself
# (see docs/RELIABILITY.md), leaving each in the artifacts to sort.
FUZZ_FLAGS ?=
FUZZ_CC = clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -D_DEFAULT_SOURCE -Isrc -Ikernels
FUZZ_CHECK = src/scene/body_check.c src/util/params.c src/util/units.c src/sim/bodies.c
FUZZ_HDF5 = -I/usr/include/hdf5/serial -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5
FUZZ_LEN_tipsy = 2048
FUZZ_LEN_hdf5 = 16384
FUZZ_LEN_serve = 4096
FUZZ_SEEDS_tipsy = tests/fuzz/regressions
FUZZ_SEEDS_hdf5 = tests/fuzz/regressions-hdf5
FUZZ_SEEDS_serve = tests/fuzz/regressions-serve
fuzz:
	mkdir -p build-fuzz/corpus-$(FUZZ_TARGET) build-fuzz/artifacts-$(FUZZ_TARGET)
	$(FUZZ_CC) src/scene/tipsy.c src/util/atomic_file.c src/util/input_file.c $(FUZZ_CHECK) tests/fuzz/fuzz_tipsy.c \
	    -o build-fuzz/fuzz_tipsy -lm
	$(FUZZ_CC) src/scene/snapshot_hdf5.c src/scene/swift_params.c $(FUZZ_CHECK) tests/fuzz/fuzz_hdf5.c -o build-fuzz/fuzz_hdf5 $(FUZZ_HDF5) -lm
	$(FUZZ_CC) src/serve/serve_msg.c tests/fuzz/fuzz_serve_msg.c -o build-fuzz/fuzz_serve -lm
	cp -n $(FUZZ_SEEDS_$(FUZZ_TARGET))/* build-fuzz/corpus-$(FUZZ_TARGET)/ 2>/dev/null || true
	cd build-fuzz && LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan-hdf5.supp ./fuzz_$(FUZZ_TARGET) -max_len=$(FUZZ_LEN_$(FUZZ_TARGET)) -max_total_time=$(FUZZ_SECONDS) \
	    -artifact_prefix=artifacts-$(FUZZ_TARGET)/ -print_final_stats=1 $(FUZZ_FLAGS) corpus-$(FUZZ_TARGET)

clean:
	rm -rf $(BUILD) $(ASAN) build-fuzz
