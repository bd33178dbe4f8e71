# The user's verbs. `make run` measures, `make test` checks; both install what is missing first.
BUILD  ?= build
JOBS   ?= $(shell nproc)
# plots/plot.py runs under the project venv when setup had to make one (deferred: setup runs first).
PYTHON  = $(if $(wildcard .venv/bin/python3),.venv/bin/python3,python3)
GENERATOR := $(if $(shell command -v ninja),-G Ninja)

.PHONY: setup build run test plots clean

setup:
	@scripts/setup.sh

build: setup
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release
	@cmake --build $(BUILD) -j $(JOBS)

# On a Hopper GPU: the ladder writes results/<gpu>.json, then the plots are drawn from it.
run: build
	@scripts/run.sh "$(BUILD)" "$(PYTHON)"

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

plots: setup
	@scripts/plots.sh "$(PYTHON)"

clean:
	rm -rf $(BUILD)

.PHONY: diff docs sanitize profile format

# Every C++ and CUDA source through clang-format (.clang-format: 120 columns).
format:
	@git ls-files -co --exclude-standard '*.cu' '*.cuh' '*.h' '*.cpp' | xargs clang-format -i

# On a GPU machine: compute-sanitizer's memcheck, racecheck, synccheck and initcheck over every
# version's kernels; fails on any reported error.
sanitize: build
	@scripts/sanitize.sh "$(BUILD)"

# On a GPU machine, after make run: ncu's tensor-pipe and DRAM figures at 8192^3 for every
# version, stored in the results file; make docs and make plots then show them.
profile: build
	@python3 scripts/ncu_profile.py --build "$(BUILD)"

# Two versions' kernels side by side: make diff FROM=v0_naive TO=v1_tma
diff:
	@scripts/diff.sh "$(FROM)" "$(TO)"

# Regenerates everything docs/ quotes: source excerpts, the tables from results/h200.json,
# docs/diffs/ and each version page's ladder chart. A second run changes nothing.
docs: setup
	@python3 scripts/docs.py update
	@python3 scripts/docs.py images --python $(PYTHON)
