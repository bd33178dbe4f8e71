#!/usr/bin/env python3
"""Check plots/timeline.py against the sample trace: the chart is written and byte-reproducible,
the figures are those worked out by hand below, bad traces give exit status 2 with one line on
stderr naming the problem, and without matplotlib --help still works and a render names the
interpreter to use.

Usage: python3 tests/test_timeline.py [--python PATH]   (exit 0 when every check passes)
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from checks import Checks, check_outputs, check_reproducible

HERE = os.path.dirname(os.path.abspath(__file__))
TIMELINE = os.path.join(HERE, os.pardir, "plots", "timeline.py")
FIXTURE = os.path.join(HERE, "data", "sample_trace.json")
STEM = "sample"

# The figures of the sample, by hand, in ns after the CTA's first event (the producer's first load,
# at 1764412805123450000; every timestamp below is that plus the number shown):
#   consumer 1: first event 212, last end 18679: span 18467. Waits on full 212-2776, 6776-7740,
#     14836-15659: 2564 + 964 + 823 = 4351; 4351 / 18467 = 0.23561 -> 0.2356 (23.6%).
#     Tile 0's last compute ends at 9781, tile 1's first starts at 10818: a gap of 1037.
#   consumer 2: first event 236, last end 18779: span 18543. Waits on full 236-2776, 6855-7740,
#     14985-15659: 2540 + 885 + 674 = 4099; 4099 / 18543 = 0.22105 -> 0.2211 (22.1%).
#     Tile 0's last compute ends at 9802, tile 1's first starts at 10911: a gap of 1109.
#   together: gaps 1037 and 1109, median (1037 + 1109) / 2 = 1073, max 1109.
#   the CTA: first event 0 (producer), last end 18779 (consumer 2's store).
#   The producer has no compute event: it is no consumer lane.
EXPECTED_FIGURES = {
    "version": "v5_persistent", "dtype": "fp16", "m": 8192, "n": 8192, "k": 8192,
    "device": "Sample GPU (test fixture, not a measurement)", "date": "2000-01-01T00:00:00Z",
    "git": "0000000", "block": 0, "sm": 17, "span_us": 18.779,
    "consumer_lanes": [
        {"name": "consumer 1", "span_us": 18.467, "wait_full_us": 4.351, "wait_full_fraction": 0.2356,
         "tile_gaps": {"count": 1, "median_us": 1.037, "max_us": 1.037}},
        {"name": "consumer 2", "span_us": 18.543, "wait_full_us": 4.099, "wait_full_fraction": 0.2211,
         "tile_gaps": {"count": 1, "median_us": 1.109, "max_us": 1.109}},
    ],
    "tile_gaps": {"count": 2, "median_us": 1.073, "max_us": 1.109},
}
EXPECTED_LINES = [
    "block 0 on SM 17: 18.779 µs from its first event to its last",
    "consumer 1: waits on full 23.6% of its time (4.351 of 18.467 µs); "
    "gaps between tiles median 1.037 µs, max 1.037 µs (1 gap)",
    "consumer 2: waits on full 22.1% of its time (4.099 of 18.543 µs); "
    "gaps between tiles median 1.109 µs, max 1.109 µs (1 gap)",
    "consumer lanes together: gaps between tiles median 1.073 µs, max 1.109 µs (2 gaps)",
]



def run_timeline(python, *args, env=None):
    # The figures print µ: UTF-8 both ways, whatever the locale.
    env = {**(env or os.environ), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([python, TIMELINE, *args], capture_output=True, encoding="utf-8", env=env)


def render(python, out_dir, checks, *extra):
    result = run_timeline(python, FIXTURE, "--out", out_dir, "--stem", STEM, *extra)
    checks.expect(result.returncode == 0,
                  f"timeline.py {' '.join(extra)} exits 0 (got {result.returncode}: {result.stderr.strip()})")
    return result


def check_figures(result, figures_path, checks):
    for line in EXPECTED_LINES:
        checks.expect(line in result.stdout.splitlines(), f"stdout has the line {line!r}")
    try:
        with open(figures_path, encoding="utf-8") as f:
            written = json.load(f)
    except (OSError, ValueError) as err:
        checks.expect(False, f"--figures wrote readable JSON ({err})")
        return
    checks.expect(written == EXPECTED_FIGURES,
                  f"--figures JSON is the hand-computed figures (got {json.dumps(written)})")


def check_window(python, tmp, checks):
    """A window shorter than the trace clips the chart, not the figures."""
    out = os.path.join(tmp, "window")
    result = render(python, out, checks, "--window-us", "5")
    checks.expect(os.path.isfile(os.path.join(out, f"{STEM}.svg")), "--window-us 5 writes the chart")
    checks.expect(EXPECTED_LINES[1] in result.stdout, "--window-us 5 leaves the figures as they are")


def broken(tmp, name, edit):
    """A copy of the fixture changed by edit(doc), written as name.json; its path."""
    with open(FIXTURE, encoding="utf-8") as f:
        doc = json.load(f)
    edit(doc)
    path = os.path.join(tmp, f"{name}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path


def events(doc, lane):
    return doc["ctas"][0]["lanes"][lane]["events"]


def bad_inputs(tmp):
    """(description, arguments, text the stderr line must hold) for input rejected with exit 2."""
    not_json = os.path.join(tmp, "not_json.json")
    with open(not_json, "w", encoding="utf-8") as f:
        f.write('{"version": "v5_persistent", "ctas": [')
    start = 1764412805123450000
    out = os.path.join(tmp, "rejected")

    def end_before_start(doc):
        events(doc, 1)[3]["end"] = events(doc, 1)[3]["start"] - 100

    def overlapping(doc):
        events(doc, 2)[2]["start"] = events(doc, 2)[1]["end"] - 10

    cases = [
        ("not JSON", not_json, "invalid JSON"),
        ("missing file", os.path.join(tmp, "does_not_exist.json"), "cannot read"),
        ("missing top-level key", broken(tmp, "no_ctas", lambda d: d.pop("ctas")),
         "top level: no field 'ctas'"),
        ("missing CTA key", broken(tmp, "no_sm", lambda d: d["ctas"][0].pop("sm")),
         "ctas[0]: no field 'sm'"),
        ("missing event key", broken(tmp, "no_end", lambda d: events(d, 0)[4].pop("end")),
         "ctas[0].lanes[0].events[4]: no field 'end'"),
        ("end before start", broken(tmp, "end_before_start", end_before_start),
         f"ctas[0].lanes[1].events[3]: end {start + 6676} before start {start + 6776}"),
        ("overlapping events", broken(tmp, "overlapping", overlapping),
         f"ctas[0].lanes[2].events[2]: starts at {start + 4814}, before events[1] ends at {start + 4824}"),
        ("unsorted events", broken(tmp, "unsorted", lambda d: events(d, 0).reverse()),
         "ctas[0].lanes[0].events[1]: starts at"),
        ("unknown state", broken(tmp, "idle", lambda d: events(d, 0)[1].update(state="idle")),
         "ctas[0].lanes[0].events[1]: state 'idle', expected one of wait, load, compute, store"),
        ("unknown barrier", broken(tmp, "barrier", lambda d: events(d, 1)[0].update(barrier="half")),
         "ctas[0].lanes[1].events[0]: barrier 'half'"),
        ("misspelt field", broken(tmp, "misspelt", lambda d: events(d, 1)[0].update(barier="full")),
         "ctas[0].lanes[1].events[0]: unknown field 'barier'"),
        ("string timestamp", broken(tmp, "string_start", lambda d: events(d, 2)[0].update(start="0")),
         "ctas[0].lanes[2].events[0]: field 'start' is not an integer"),
        ("tile revisited", broken(tmp, "tile_again", lambda d: events(d, 1)[-1].update(tile=0)),
         "ctas[0].lanes[1].events[10]: tile 0 again after tile 1 began"),
        ("unknown timer", broken(tmp, "clock64", lambda d: d.update(timer="clock64")),
         "top level: timer 'clock64', expected 'globaltimer_ns'"),
        ("no CTA", broken(tmp, "no_cta", lambda d: d.update(ctas=[])), "top level: 'ctas' is empty"),
    ]
    runs = [(what, [path, "--out", out], expected) for what, path, expected in cases]
    runs.append(("unknown --block", [FIXTURE, "--out", out, "--block", "7"],
                 "no CTA with block 7; blocks present: 0"))
    return runs


def check_rejections(python, tmp, checks):
    for what, args, expected in bad_inputs(tmp):
        result = run_timeline(python, *args)
        stderr = result.stderr.strip()
        checks.expect(result.returncode == 2, f"{what}: exit code 2 (got {result.returncode})")
        checks.expect(stderr and "\n" not in stderr and "Traceback" not in stderr,
                      f"{what}: one stderr line without a traceback (got {stderr!r})")
        checks.expect(expected in stderr, f"{what}: stderr names the problem, {expected!r} (got {stderr!r})")
    checks.expect(not os.path.exists(os.path.join(tmp, "rejected")), "a rejected trace writes no chart")


def check_without_matplotlib(python, tmp, checks):
    """A matplotlib that cannot be imported, first on the path: --help still works, and a render
    exits 1 with one line naming the interpreter to use."""
    shadow = os.path.join(tmp, "no_matplotlib", "matplotlib")
    os.makedirs(shadow)
    with open(os.path.join(shadow, "__init__.py"), "w", encoding="utf-8") as f:
        f.write('raise ImportError("matplotlib hidden by test_timeline.py")\n')
    env = {**os.environ, "PYTHONPATH": os.path.dirname(shadow)}
    result = run_timeline(python, "--help", env=env)
    checks.expect(result.returncode == 0 and "usage: timeline.py" in result.stdout,
                  f"--help without matplotlib exits 0 with the usage (got {result.returncode}: "
                  f"{result.stderr.strip()})")
    result = run_timeline(python, FIXTURE, "--out", os.path.join(tmp, "no_chart"), env=env)
    stderr = result.stderr.strip()
    checks.expect(result.returncode == 1, f"a render without matplotlib exits 1 (got {result.returncode})")
    checks.expect(stderr and "\n" not in stderr and ".venv/bin/python3" in stderr,
                  f"a render without matplotlib names .venv/bin/python3 in one line (got {stderr!r})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter that runs timeline.py (default: this one)")
    args = parser.parse_args()

    checks = Checks()
    with tempfile.TemporaryDirectory() as tmp:
        first, second = os.path.join(tmp, "first"), os.path.join(tmp, "second")
        figures_path = os.path.join(tmp, "figures.json")
        result = render(args.python, first, checks, "--figures", figures_path)
        render(args.python, second, checks)
        check_outputs(first, [STEM], checks)
        check_reproducible(first, second, [STEM], checks)
        check_figures(result, figures_path, checks)
        check_window(args.python, tmp, checks)
        check_rejections(args.python, tmp, checks)
        check_without_matplotlib(args.python, tmp, checks)

    return checks.summary("test_timeline")


if __name__ == "__main__":
    sys.exit(main())
