#!/usr/bin/env python3
"""make profile: Nsight Compute's tensor-pipe and DRAM figures for every version, into the results.

    scripts/ncu_profile.py [--build DIR] [--results FILE] [--size S]

For each registered version and dtype, runs the version's binary at S³ (default 8192) under
`ncu --clock-control none --cache-control none`, skips the first launches of its kernel, profiles
the next few, and stores the medians as the run's `profile` object
({"tensor_pipe_pct", "dram_pct"}) in the results file (default results/<gpu>.json as written by
`make run`; not the LLM suite's results/<gpu>_llm.json), which plots/plot.py and `make docs` then
show. Exit codes: 0 done, 1 a run failed, 2 bad arguments or results file, 3 no GPU or no ncu.
"""
import argparse
import csv
import io
import json
import os
import shutil
import statistics
import subprocess
import sys

TENSOR = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
SKIP, COUNT = 3, 5  # launches of the kernel left alone (warm-up), then profiled
TIMEOUT_S = 300


def fail(code, message):
    print(f"profile: {message}", file=sys.stderr)
    sys.exit(code)


def parse_ncu_csv(text):
    """The rows of `ncu --csv --page raw` output that hold figures: one dict per profiled launch.

    ncu prints the program's own output and `==PROF==` lines around the table; the table is its
    quoted lines, a header naming the metrics, a row of units, then one row per launch."""
    quoted = [line for line in text.splitlines() if line.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(quoted))))
    for i, header in enumerate(rows):
        if TENSOR in header and DRAM in header:
            return [dict(zip(header, r)) for r in rows[i + 1:] if len(r) == len(header) and is_number(r[header.index(TENSOR)])]
    return []


def is_number(cell):
    try:
        float(cell.replace(",", ""))
        return True
    except ValueError:
        return False


def medians(launches):
    """The median of each figure over the profiled launches."""
    if not launches:
        raise ValueError("ncu reported no launch of matmul_kernel")
    value = lambda launch, metric: float(launch[metric].replace(",", ""))
    return {
        "tensor_pipe_pct": statistics.median(value(l, TENSOR) for l in launches),
        "dram_pct": statistics.median(value(l, DRAM) for l in launches),
    }


def registered_versions(build):
    """The versions the ladder knows (`ladder --list`), cuBLAS and the peers (`[peer]`: not our
    matmul_kernel) left out, that have a binary here; a version's alternative form has its own
    (bin/v6_tma_store_pingpong: add_matmul_alternative)."""
    listed = subprocess.run([os.path.join(build, "bin", "ladder"), "--list"], capture_output=True, text=True, check=True)
    lines = [line.split() for line in listed.stdout.splitlines() if line.strip()]
    names = [words[0] for words in lines if words[1:2] != ["[peer]"]]
    return [name for name in names if name != "cublas" and os.path.isfile(os.path.join(build, "bin", name))]


def profile_run(binary, size, dtype):
    command = ["ncu", "--csv", "--page", "raw", "--clock-control", "none", "--cache-control", "none",
               "-k", "regex:matmul_kernel", "--launch-skip", str(SKIP), "-c", str(COUNT),
               "--metrics", f"{TENSOR},{DRAM}",
               binary, "--size", str(size), "--dtype", dtype, "--warmup", "0", "--iters", "20", "--no-check"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"ncu exited with {done.returncode}: {done.stderr.strip()[-300:]}")
    return medians(parse_ncu_csv(done.stdout))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(root, "build"))
    parser.add_argument("--results", default=None)
    parser.add_argument("--size", type=int, default=8192)
    args = parser.parse_args()
    if args.size <= 0 or args.size % 8:
        fail(2, f"--size {args.size}: must be a positive multiple of 8")
    if shutil.which("ncu") is None:
        fail(3, "ncu not found (Nsight Compute ships with the CUDA toolkit)")
    if subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode != 0:
        fail(3, "no NVIDIA GPU found")

    path = args.results
    if path is None:
        results = [f for f in os.listdir(os.path.join(root, "results"))
                   if f.endswith(".json") and not f.endswith("_llm.json")]  # the suite has no square run
        if len(results) != 1:
            fail(2, f"{len(results)} results files in results/: name one with --results")
        path = os.path.join(root, "results", results[0])
    try:
        doc = json.load(open(path))
        runs = doc["runs"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(2, f"{path}: not a results file ({e})")

    try:
        versions = registered_versions(args.build)
    except (OSError, subprocess.CalledProcessError) as e:
        fail(2, f"cannot list the versions with {args.build}/bin/ladder --list ({e}): make build first")

    failures = 0
    for version in versions:
        for dtype in ("fp16", "bf16"):
            matching = [r for r in runs if r.get("version") == version and r.get("dtype") == dtype
                        and r.get("m") == r.get("n") == r.get("k") == args.size]
            if not matching:
                print(f"profile: {version} {dtype} {args.size}^3: not in {path}, skipped")
                continue
            try:
                figures = profile_run(os.path.join(args.build, "bin", version), args.size, dtype)
            except (RuntimeError, ValueError, KeyError, subprocess.TimeoutExpired) as e:
                print(f"profile: {version} {dtype} {args.size}^3: {e}")
                failures += 1
                continue
            matching[0]["profile"] = figures
            print(f"profile: {version:18} {dtype} {args.size}^3  tensor pipe {figures['tensor_pipe_pct']:5.1f}%"
                  f"  DRAM {figures['dram_pct']:5.1f}%  (median of {COUNT} launches)", flush=True)

    tmp = path + ".tmp"
    with open(tmp, "w") as out:
        json.dump(doc, out, indent=2, sort_keys=True)
        out.write("\n")
    os.replace(tmp, path)
    print(f"profile: wrote {path}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
