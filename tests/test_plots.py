#!/usr/bin/env python3
"""Check plots/plot.py against the sample fixture (versions, peers and cuBLAS): every chart is
written, rendering is byte-reproducible, and bad input gives exit status 2 with one line on stderr.

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



def run_plot(python, *args):
    return subprocess.run([python, PLOT, *args], capture_output=True, text=True)


def render(python, out_dir, checks):
    """Render every chart of the fixture into out_dir: the full set, then the --upto ladder."""
    for extra in ([], ["--upto", "v0_naive"]):
        result = run_plot(python, FIXTURE, "--out", out_dir, *extra)
        checks.expect(result.returncode == 0,
                      f"plot.py {' '.join(extra)} exits 0 (got {result.returncode}: {result.stderr.strip()})")


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
        check_rejections(args.python, tmp, checks)

    return checks.summary("test_plots")


if __name__ == "__main__":
    sys.exit(main())
