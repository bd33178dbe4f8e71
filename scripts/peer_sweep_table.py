#!/usr/bin/env python3
"""The table of a CUTLASS configuration sweep: one row per configuration and tile order, one
column per dtype and size, each cell the ratio to cuBLAS (cuBLAS's median time over the kernel's,
timed launch by launch in the same process); then the best row of each schedule and dtype, by the
geometric mean of its ratios over the sizes. Markdown, to paste into a page.

Usage: peer_sweep_table.py RESULTS.json...   (the files cutlass_sweep --json writes)
Standard library only; exit 2, with one line, for a file that is not such a results file.
"""

import json
import math
import sys

KEYS = ("TILE_M", "TILE_N", "TILE_K", "CLUSTER_M", "CLUSTER_N", "SWIZZLE", "RASTER")
RASTER = {0: "heuristic", 1: "along M", 2: "along N"}  # CUTLASS's RasterOrderOptions
DTYPES = ("fp16", "bf16")


def row_key(run):
    return (run["version"],) + tuple(run["config"][key] for key in KEYS)


def describe(key):
    name, tile_m, tile_n, tile_k, cluster_m, cluster_n, swizzle, raster = key
    return [name[len("cutlass_"):] if name.startswith("cutlass_") else name, f"{tile_m}×{tile_n}×{tile_k}", f"{cluster_m}×{cluster_n}", str(swizzle),
            RASTER.get(raster, str(raster))]


def cell(run):
    if run is None:
        return "—"
    return f"{run['ratio_vs_cublas']:.3f}" + ("" if run.get("pass", True) is not False else " FAIL")


def geomean(runs):
    """Of the ratios, when every size ran and passed; else None."""
    if any(r is None or r.get("pass") is False for r in runs):
        return None
    return math.exp(sum(math.log(r["ratio_vs_cublas"]) for r in runs) / len(runs))


def main(paths):
    if not paths:
        print("usage: peer_sweep_table.py RESULTS.json...", file=sys.stderr)
        return 2
    runs, devices = {}, set()
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            devices.add(doc["device"]["name"])
            for run in doc["runs"]:
                runs[row_key(run) + (run["dtype"], run["m"], run["n"], run["k"])] = run
        except (OSError, ValueError, KeyError, TypeError) as err:
            print(f"peer_sweep_table: {path}: not a sweep's results file ({err})", file=sys.stderr)
            return 2
    rows = sorted({key[:8] for key in runs})
    columns = sorted({key[8:] for key in runs}, key=lambda c: (DTYPES.index(c[0]) if c[0] in DTYPES else 9, c[1:]))
    shape = lambda m, n, k: f"{m}³" if m == n == k else f"{m}×{n}×{k}"
    print(f"CUTLASS sweep on {', '.join(sorted(devices))}: ratio to cuBLAS (above 1: faster than cuBLAS)\n")
    print("| schedule | tile | cluster | swizzle | raster | "
          + " | ".join(f"{dtype} {shape(m, n, k)}" for dtype, m, n, k in columns) + " |")
    print("|---|---|---|--:|---|" + "--:|" * len(columns))
    for row in rows:
        print("| " + " | ".join(describe(row) + [cell(runs.get(row + c)) for c in columns]) + " |")
    print("\nBest of each schedule and dtype, by the geometric mean of its ratios over the sizes:\n")
    for dtype in sorted({c[0] for c in columns}, key=lambda d: DTYPES.index(d) if d in DTYPES else 9):
        sizes = [c for c in columns if c[0] == dtype]
        for schedule in sorted({row[0] for row in rows}):
            scored = [(geomean([runs.get(row + c) for c in sizes]), row) for row in rows if row[0] == schedule]
            scored = [(score, row) for score, row in scored if score is not None]
            if scored:
                score, row = max(scored)
                name, tile, cluster, swizzle, raster = describe(row)
                print(f"- {dtype} {name}: {tile}, cluster {cluster}, swizzle {swizzle}, {raster}: {score:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
