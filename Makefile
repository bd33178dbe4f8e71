# The user's verbs. `make run` measures, `make test` checks; both install what is missing first.
# `make` alone, or `make help`, lists them: the `##` line above each verb is its help line.
BUILD  ?= build
JOBS   ?= $(shell nproc)
# The Python that draws the plots: .venv's when scripts/setup.sh made one, else python3. Decided by
# the shell when a recipe runs, after setup (make's own file cache would not see a new .venv).
# `make plots PYTHON=/path/to/python3` overrides it.
PYTHON  = $$(test -x .venv/bin/python3 && echo .venv/bin/python3 || echo python3)
GENERATOR := $(if $(shell command -v ninja),-G Ninja)

.DEFAULT_GOAL := help
.PHONY: help setup build run test plots clean distclean

## help       this list
help:
	@echo "make <verb>, one of:"
	@sed -n 's/^## /  /p' $(MAKEFILE_LIST)

## setup      install only what is missing: Catch2 v3, nlohmann-json, the pinned matplotlib, cuobjdump
setup:
	@scripts/setup.sh

## build      setup, then configure build/ (Release) and build everything
build: setup
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release
	@cmake --build $(BUILD) -j $(JOBS)

# On a Hopper GPU: the ladder writes results/<gpu>.json, its LLM suite results/<gpu>_llm.json, the
# FP8 rung results/fp8/<gpu>.json, then the plots are drawn from them.
## run        build, run the ladder, its LLM suite and the FP8 rung on the GPU into results/, draw plots/
run: build
	@scripts/run.sh "$(BUILD)" "$(PYTHON)"

## test       build, then run every test with CTest (GPU tests skip without a Hopper GPU)
test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

## plots      redraw plots/<gpu>/ from every results/<gpu>.json
plots: setup
	@scripts/plots.sh "$(PYTHON)"

## clean      remove build/ (the build only)
clean:
	rm -rf $(BUILD)

## distclean  remove build/, build-debug/, build-trace/, build-sweep/, .venv and .tools: everything setup and the builds made
distclean:
	rm -rf $(sort $(BUILD) build build-debug build-trace build-sweep) .venv .tools

.PHONY: diff docs sanitize profile format timeline

## format     clang-format every C++ and CUDA source (120 columns)
format:
	@git ls-files -co --exclude-standard '*.cu' '*.cuh' '*.h' '*.cpp' | xargs clang-format -i

# On a GPU machine: compute-sanitizer's memcheck, racecheck, synccheck and initcheck over every
# version's kernels; fails on any reported error.
## sanitize   compute-sanitizer over every version, on a GPU (SANITIZE_VERSIONS=v5_persistent: one)
sanitize: build
	@scripts/sanitize.sh "$(BUILD)"

# On a GPU machine, after make run: ncu's tensor-pipe and DRAM figures at 8192^3 for every
# version, stored in the results file; make docs and make plots then show them.
## profile    ncu's tensor-pipe and DRAM figures into the results, on a GPU, after `make run`
profile: build
	@python3 scripts/ncu_profile.py --build "$(BUILD)"

# On a GPU machine: the trace build (build-trace/) logs each role's state changes at 8192^3; the
# timelines go to results/traces/ and plots/timelines/, beside the cost of tracing.
## timeline   each version's roles over time, on a GPU: results/traces/, plots/timelines/
timeline: build
	@test -f build-trace/CMakeCache.txt || cmake --preset trace $(GENERATOR)
	@cmake --build build-trace -j $(JOBS)
	@scripts/timeline.sh "$(PYTHON)"

## diff       two versions' kernel.cu side by side: make diff FROM=v0_naive TO=v1_tma
diff:
	@scripts/diff.sh "$(FROM)" "$(TO)"

# Regenerates everything docs/ quotes: source excerpts, the tables from results/h200.json,
# docs/diffs/ and each version page's ladder chart. A second run changes nothing.
## docs       regenerate what docs/ quotes: excerpts, tables, docs/diffs/, ladder charts
docs: setup
	@python3 scripts/docs.py update
	@python3 scripts/docs.py images --python "$(PYTHON)"
