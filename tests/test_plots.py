#!/usr/bin/env python3
"""Check plots/plot.py against the sample fixtures (the ladder's: versions, peers and cuBLAS; the LLM
suite's): every chart is written, rendering is byte-reproducible, the LLM charts order their shapes
by M, then by layer, and bad input gives exit status 2 with one line on stderr.

Usage: python3 tests/test_plots.py [--python PATH]   (exit 0 when every check passes)
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from checks import Checks, check_outputs, check_reproducible

HERE = os.path.dirname(os.path.abspath(__file__))
PLOT = os.path.join(HERE, os.pardir, "plots", "plot.py")
FIXTURE = os.path.join(HERE, "data", "sample_results.json")
STEMS = ["ladder", "ladder_upto_v0_naive", "sweep_fp16", "sweep_bf16", "profile", "energy"]
LLM_FIXTURE = os.path.join(HERE, "data", "sample_llm.json")
LLM_STEMS = ["llm_ratio", "llm_bandwidth"]



def run_plot(python, *args):
    return subprocess.run([python, PLOT, *args], capture_output=True, text=True)


def render(python, out_dir, checks):
    """Render every chart of the fixture into out_dir: the full set, then the --upto ladder."""
    for extra in ([], ["--upto", "v0_naive"]):
        result = run_plot(python, FIXTURE, "--out", out_dir, *extra)
        checks.expect(result.returncode == 0,
                      f"plot.py {' '.join(extra)} exits 0 (got {result.returncode}: {result.stderr.strip()})")


def render_llm(python, out_dir, checks):
    """Render the LLM suite's fixture into out_dir: its two charts, and none of the ladder's."""
    result = run_plot(python, LLM_FIXTURE, "--out", out_dir)
    checks.expect(result.returncode == 0, f"plot.py on the LLM fixture exits 0 (got {result.returncode}: "
                                          f"{result.stderr.strip()})")
    drawn = sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else []
    checks.expect(drawn == sorted(f"{stem}.{ext}" for stem in LLM_STEMS for ext in ("png", "svg")),
                  f"the LLM fixture gives its two charts alone (got {drawn})")


def write_changed(tmp, name, source, change):
    """`source` with change(doc) applied, written as tmp/name.json; its path."""
    with open(source) as f:
        doc = json.load(f)
    change(doc)
    path = os.path.join(tmp, f"{name}.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def check_llm_without_bandwidth(python, tmp, checks):
    """A suite file without a run at M <= 128 has no bandwidth chart; its ratio chart is drawn."""
    def drop_bandwidth(doc):
        for run in doc["runs"]:
            run.pop("weight_gbps", None)
    out = os.path.join(tmp, "no_bandwidth")
    result = run_plot(python, write_changed(tmp, "no_bandwidth", LLM_FIXTURE, drop_bandwidth), "--out", out)
    checks.expect(result.returncode == 0 and "llm_bandwidth chart skipped" in result.stdout,
                  f"without a bandwidth of W: exit 0, the chart skipped with a line (got {result.returncode})")
    checks.expect(os.path.isfile(os.path.join(out, "llm_ratio.png"))
                  and not os.path.exists(os.path.join(out, "llm_bandwidth.png")),
                  "without a bandwidth of W: llm_ratio drawn, llm_bandwidth not")


def check_llm_order(checks):
    """The LLM charts' shapes: by M, then by layer in the order the runs first name it (not by size)."""
    sys.path.insert(0, os.path.dirname(PLOT))
    import plot
    with open(LLM_FIXTURE) as f:
        runs = json.load(f)["runs"]
    qkv, down = (6144, 4096), (4096, 14336)  # the fixture's layers, in its order
    checks.expect(plot.llm_shapes(runs) == [(1, *qkv), (1, *down), (2048, *qkv), (2048, *down)],
                  f"shapes by M, then by the file's layer order (got {plot.llm_shapes(runs)})")
    checks.expect(plot.llm_shapes(runs[::-1]) == [(1, *down), (1, *qkv), (2048, *down), (2048, *qkv)],
                  "the runs reversed: M still ascending, the layers in their new order")


def bad_inputs(tmp):
    """(description, plot.py arguments) for inputs that must be rejected with exit 2."""
    malformed = os.path.join(tmp, "malformed.json")
    with open(malformed, "w") as f:
        f.write('{"runs": [')
    foreign = os.path.join(tmp, "foreign.json")
    with open(foreign, "w") as f:
        json.dump({"foo": 1}, f)
    with open(FIXTURE) as f:
        doc = json.load(f)
    del doc["runs"][3]["tflops"]
    no_tflops = os.path.join(tmp, "no_tflops.json")
    with open(no_tflops, "w") as f:
        json.dump(doc, f)
    peer_changed = []  # the fixture with its first peer run changed, one way per file
    for name, change in (("unmarked_peer", {"peer": False}), ("peer_v9", {"version": "v9_peer"})):
        with open(FIXTURE) as f:
            doc = json.load(f)
        next(run for run in doc["runs"] if run.get("peer")).update(change)
        peer_changed.append(os.path.join(tmp, f"{name}.json"))
        with open(peer_changed[-1], "w") as f:
            json.dump(doc, f)
    hbm_text = write_changed(tmp, "hbm_text", LLM_FIXTURE, lambda doc: doc.update(hbm_read_gbps="fast"))
    bad_bandwidth = write_changed(tmp, "bad_bandwidth", LLM_FIXTURE,
                                  lambda doc: doc["runs"][0].update(weight_gbps=None))
    bad_read = write_changed(tmp, "bad_read", LLM_FIXTURE, lambda doc: doc["runs"][0].update(read_gbps="fast"))
    out = os.path.join(tmp, "rejected")
    return [
        ("malformed JSON", [malformed, "--out", out]),
        ("foreign JSON", [foreign, "--out", out]),
        ("missing file", [os.path.join(tmp, "does_not_exist.json"), "--out", out]),
        ("unknown --upto", [FIXTURE, "--out", out, "--upto", "v9_nope"]),
        ("run without tflops", [no_tflops, "--out", out]),
        ("a foreign name without \"peer\": true", [peer_changed[0], "--out", out]),
        ("a peer named like a version", [peer_changed[1], "--out", out]),
        ("--upto a peer, not a rung", [FIXTURE, "--out", out, "--upto", "cutlass_pingpong"]),
        ("size not in results", [FIXTURE, "--out", out, "--size", "4096"]),
        ("--upto on an LLM-suite file", [LLM_FIXTURE, "--out", out, "--upto", "v6_tma_store"]),
        ("an HBM read limit that is not a number", [hbm_text, "--out", out]),
        ("a bandwidth of W that is not a number", [bad_bandwidth, "--out", out]),
        ("a read of W that is not a number", [bad_read, "--out", out]),
    ]


def check_rejections(python, tmp, checks):
    for what, args in bad_inputs(tmp):
        result = run_plot(python, *args)
        stderr = result.stderr.strip()
        checks.expect(result.returncode == 2, f"{what}: exit code 2 (got {result.returncode})")
        checks.expect(stderr and "\n" not in stderr and "Traceback" not in stderr,
                      f"{what}: one stderr line without a traceback (got {stderr!r})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter that runs plot.py (default: this one)")
    args = parser.parse_args()

    checks = Checks()
    with tempfile.TemporaryDirectory() as tmp:
        first, second = os.path.join(tmp, "first"), os.path.join(tmp, "second")
        render(args.python, first, checks)
        render(args.python, second, checks)
        check_outputs(first, STEMS, checks)
        check_reproducible(first, second, STEMS, checks)
        llm_first, llm_second = os.path.join(tmp, "llm_first"), os.path.join(tmp, "llm_second")
        render_llm(args.python, llm_first, checks)
        render_llm(args.python, llm_second, checks)
        check_outputs(llm_first, LLM_STEMS, checks)
        check_reproducible(llm_first, llm_second, LLM_STEMS, checks)
        check_llm_without_bandwidth(args.python, tmp, checks)
        check_llm_order(checks)
        check_rejections(args.python, tmp, checks)

    return checks.summary("test_plots")


if __name__ == "__main__":
    sys.exit(main())
