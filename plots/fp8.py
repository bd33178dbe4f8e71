#!/usr/bin/env python3
"""Draws v10_fp8's two charts from `build/bin/v10_fp8`'s results files (results/fp8/):

  fp8.py LADDER.json PRECISION.json [--out DIR]

  fp8_ladder     TFLOPS per size: v10's per-tensor and block-scaled forms, cuBLASLt beside them
  fp8_precision  the relative error of C over K, beyond bf16's own rounding, per kernel

Default DIR: plots/<GPU>_fp8/ (GPU: the ladder file's name without .json).
"""

import argparse
import os
import sys

import charts

PROG = "fp8.py"


class Fp8Error(Exception):
    pass


def load(path):
    doc = charts.load_json(path, Fp8Error)
    if not isinstance(doc, dict) or not ("rows" in doc or "precision" in doc):
        raise Fp8Error("not a v10_fp8 results file (no \"rows\" or \"precision\")")
    return doc


def draw_ladder(plt, doc, out):
    rows = doc.get("rows", [])
    sizes = sorted({r["m"] for r in rows if r["m"] == r["n"] == r["k"]})
    if not sizes:
        raise Fp8Error("no square runs in \"rows\"")
    series = [("v10_fp8, per-tensor", "tensor", "tflops"), ("v10_fp8, block-scaled", "block", "tflops"),
              ("cuBLASLt, per-tensor", "tensor", "cublaslt_ms")]
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(series)
    for i, (label, scaling, key) in enumerate(series):
        values = []
        for s in sizes:
            run = next(r for r in rows if r["m"] == s and r["scaling"] == scaling)
            values.append(run[key] if key == "tflops" else 2.0 * s ** 3 / (run[key] * 1e-3) / 1e12)
        bars = ax.bar([x + (i - 1) * width for x in range(len(sizes))], values, width, label=label)
        ax.bar_label(bars, fmt="%.0f", fontsize=7)
    ax.set_xticks(range(len(sizes)), [f"{s}³" for s in sizes])
    ax.set_ylabel("TFLOPS (median)")
    ax.set_title(f"FP8 (e4m3 in, bf16 out) on the {doc.get('gpu', 'GPU')}, against {doc.get('reference', 'cuBLASLt')}",
                 fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    charts.save_figure(fig, out, "fp8_ladder")


def draw_precision(plt, doc, out):
    table = doc.get("precision", [])
    if not table:
        raise Fp8Error("no \"precision\" table")
    fig, ax = plt.subplots(figsize=(7, 4))
    for kernel in dict.fromkeys(e["kernel"] for e in table):
        points = sorted((e["k"], e["error"]["rel_err_vs_bf16"]) for e in table if e["kernel"] == kernel)
        ax.plot([k for k, _ in points], [v for _, v in points], marker="o", label=kernel)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("K")
    ax.set_ylabel("‖C − bf16(exact)‖ / ‖exact‖")
    ax.set_title("Accumulation error beyond bf16's rounding, 1024 × 1024 × K, unit scales", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    charts.save_figure(fig, out, "fp8_precision")


def main(argv=None):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("ladder")
    parser.add_argument("precision")
    parser.add_argument("--out", metavar="DIR")
    args = parser.parse_args(argv)
    out = args.out or os.path.join(charts.ROOT, "plots", os.path.splitext(os.path.basename(args.ladder))[0] + "_fp8")
    plt = charts.import_pyplot(PROG)
    if plt is None:
        return 1
    plt.rcParams["svg.hashsalt"] = "gemm-ladder"

    def render(_):
        ladder, precision = load(args.ladder), load(args.precision)
        os.makedirs(out, exist_ok=True)
        draw_ladder(plt, ladder, out)
        draw_precision(plt, precision, out)

    return charts.draw(PROG, args.ladder, out, lambda path: None, render, Fp8Error)


if __name__ == "__main__":
    sys.exit(main())
