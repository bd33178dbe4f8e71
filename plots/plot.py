#!/usr/bin/env python3
"""Draw the GEMM ladder charts from a results JSON written by the C++ ladder.

Charts, each written as PNG and SVG into --out:
  ladder (ladder_upto_<V>)  TFLOPS per version at S^3 for fp16 and bf16, against
                            cuBLAS, the peers and the H100/H200 dense peak
  sweep_<dtype>             TFLOPS against matrix size, one line per version plus cuBLAS
                            and the peers
  profile                   ncu tensor-pipe and DRAM utilisation per version at S^3,
                            only when the results carry ncu figures
  energy                    TFLOPS per watt and utilisation of the tensor peak at the
                            measured clock, per version, peer and cuBLAS under a sustained
                            load at S^3, only when the results carry sustained runs

A file of `ladder --suite llm` (the Llama-3 linear layers; it alone records hbm_read_gbps, the
measured HBM read limit) gives two charts instead, each with a panel per dtype:
  llm_ratio                 each kernel's ratio to cuBLAS at every shape, ordered by M, then
                            by layer in the file's order
  llm_bandwidth             each kernel's bandwidth of W at the shapes whose runs record it
                            (M <= 128), against the HBM read limit

The peers (runs marked "peer": true: someone else's kernels, such as CUTLASS's) are references,
not rungs: dashed lines like cuBLAS, never bars of the ladder.

The same JSON always gives byte-identical files. Input that is unreadable or does
not follow the results contract gives one line on stderr and exit status 2; an
interpreter without matplotlib gives one line naming the one to use and exit status 1.
"""

import argparse
import math
import os
import re
import sys

import charts
import textwrap

# matplotlib is imported by load_matplotlib(), after the arguments are parsed: --help, and the
# message naming the interpreter to use, work without it.
matplotlib = plt = Line2D = Patch = NullLocator = None

PROG = "plot.py"
BASELINE = "cublas"
DTYPES = ("fp16", "bf16")
VERSION_RE = re.compile(r"v(\d+)_.")
DENSE_PEAK_TFLOPS = 989
PEAK_LABEL = "dense peak 989 TFLOPS at 1.83 GHz (H100/H200 datasheet)"
DTYPE_COLORS = {"fp16": "tab:blue", "bf16": "tab:orange"}
FADED_COLOR = "0.6"
FADED_ALPHA = 0.3
FAIL_COLOR = "tab:red"
# Each peer's dash pattern (the same in every chart), and its colour in the sweep charts, where the
# colours tell the versions apart; in the ladder chart a peer's line takes its dtype's colour.
PEER_STYLES = ({"linestyle": (0, (6, 2)), "color": "0.3", "marker": "D"},
               {"linestyle": (0, (4, 1.5, 1, 1.5)), "color": "0.55", "marker": "^"})

# Fields the charts read, with the JSON type each must have (float: any finite number).
TOP_FIELDS = {"runs": list, "device": dict}
TOP_OPTIONAL = {"git": str, "date": str, "skipped": list, "hbm_read_gbps": float}
DEVICE_FIELDS = {"name": str}
DEVICE_OPTIONAL = {"sm_clock_mhz": float}
RUN_FIELDS = {
    "version": str, "technique": str, "dtype": str, "m": int, "n": int, "k": int,
    "tflops": float, "ratio_vs_cublas": float, "pass": bool,
}
RUN_OPTIONAL = {"profile": dict, "sustained": dict, "peer": bool, "weight_gbps": float, "read_gbps": float}
# sm_clock_mhz of a run may be null (no NVML): checked where it is read.
PROFILE_FIELDS = {"tensor_pipe_pct": float, "dram_pct": float}
SUSTAINED_FIELDS = {"seconds": float, "version": dict, "cublas": dict}
UNDER_LOAD_FIGURES = ("sm_clock_mhz", "power_w", "tflops_per_w", "tensor_util")
SKIPPED_FIELDS = {"version": str, "dtype": str, "m": int, "reason": str}
TYPE_NAMES = {str: "a string", int: "an integer", float: "a finite number",
              bool: "true or false", dict: "an object", list: "a list"}


class ResultsError(Exception):
    """The input cannot be charted; the message is the one line shown to the user."""


# ---------------------------------------------------------------- input


def is_type(value, kind):
    # JSON true/false load as bool, which Python would otherwise accept as an int.
    if isinstance(value, bool):
        return kind is bool
    if kind is float:
        return isinstance(value, (int, float)) and math.isfinite(value)
    return isinstance(value, kind)


def check_fields(obj, where, required, optional=None):
    if not isinstance(obj, dict):
        raise ResultsError(f"{where} is not a JSON object")
    for name in required:
        if name not in obj:
            raise ResultsError(f"{where} has no field '{name}'")
    for name, kind in {**required, **(optional or {})}.items():
        if name in obj and not is_type(obj[name], kind):
            raise ResultsError(f"{where} field '{name}' is not {TYPE_NAMES[kind]}")


def check_run(run, where):
    check_fields(run, where, RUN_FIELDS, RUN_OPTIONAL)
    if run["dtype"] not in DTYPES:
        raise ResultsError(f"{where} has dtype '{run['dtype']}', expected one of {', '.join(DTYPES)}")
    ladder_name = run["version"] == BASELINE or VERSION_RE.match(run["version"])
    if run.get("peer") and ladder_name:
        raise ResultsError(f"{where} is a peer named '{run['version']}', a name of the ladder's")
    if not run.get("peer") and not ladder_name:
        raise ResultsError(f"{where} has version '{run['version']}', expected '{BASELINE}', vN_name "
                           "or a run marked \"peer\": true")
    if min(run["m"], run["n"], run["k"]) <= 0:
        raise ResultsError(f"{where} has a non-positive m, n or k")
    if "profile" in run:
        check_fields(run["profile"], f"{where}.profile", PROFILE_FIELDS)
    if "sustained" in run:
        check_fields(run["sustained"], f"{where}.sustained", SUSTAINED_FIELDS)
        for kernel in ("version", "cublas"):
            check_fields(run["sustained"][kernel], f"{where}.sustained.{kernel}", {"tflops": float})
            for name in UNDER_LOAD_FIGURES:
                value = run["sustained"][kernel].get(name)
                if value is not None and not is_type(value, float):
                    raise ResultsError(f"{where}.sustained.{kernel} field '{name}' is not a finite number or null")


def check_results(doc):
    check_fields(doc, "top level", TOP_FIELDS, TOP_OPTIONAL)
    check_fields(doc["device"], "device", DEVICE_FIELDS, DEVICE_OPTIONAL)
    if not doc["runs"]:
        raise ResultsError("'runs' is empty")
    for i, run in enumerate(doc["runs"]):
        check_run(run, f"runs[{i}]")
    for i, skip in enumerate(doc.get("skipped", [])):
        check_fields(skip, f"skipped[{i}]", SKIPPED_FIELDS)


def load_results(path):
    doc = charts.load_json(path, ResultsError)
    check_results(doc)
    return doc


# ---------------------------------------------------------------- data helpers


def is_peer(version):
    """A peer's name is neither cuBLAS nor vN_name (check_run holds every run to that)."""
    return version != BASELINE and not VERSION_RE.match(version)


def version_key(version):
    """Ladder order: v0, v1, ... by their number, then the peers by name, cuBLAS last."""
    if version == BASELINE:
        return (2, 0, version)
    if is_peer(version):
        return (1, 0, version)
    return (0, int(VERSION_RE.match(version).group(1)), version)


def rungs(versions):
    """The versions of the ladder among `versions`: neither cuBLAS nor a peer."""
    return [v for v in versions if v != BASELINE and not is_peer(v)]


def peer_style(peers, peer):
    return PEER_STYLES[peers.index(peer) % len(PEER_STYLES)]


def square_runs(doc):
    """The sweep's runs (m = n = k), keyed by (version, dtype, size)."""
    return {(r["version"], r["dtype"], r["m"]): r
            for r in doc["runs"] if r["m"] == r["n"] == r["k"]}


def sorted_versions(runs):
    return sorted({version for version, _, _ in runs}, key=version_key)


def present_dtypes(runs):
    return [d for d in DTYPES if any(dtype == d for _, dtype, _ in runs)]


def sizes_text(sizes):
    return ", ".join(str(s) for s in sorted(sizes)) or "none"


def runs_at_size(runs, size):
    at_size = {key: run for key, run in runs.items() if key[2] == size}
    if not at_size:
        raise ResultsError(f"no square run at size {size}; sizes present: "
                           f"{sizes_text({s for _, _, s in runs})}")
    return at_size


def check_upto(runs, upto):
    known = rungs(sorted_versions(runs))
    if upto is not None and upto not in known:
        raise ResultsError(f"unknown --upto version '{upto}'; known versions: {', '.join(known)}")


def ratio_text(run):
    ratio = run["ratio_vs_cublas"]
    # Early rungs sit far below cuBLAS; two significant digits keep them from reading 0.00.
    text = f"{ratio:.2f}× cuBLAS" if ratio >= 0.1 else f"{ratio:.2g}× cuBLAS"
    return text if run["pass"] else f"FAIL · {text}"


def display_name(version):
    if version == BASELINE:
        return "cuBLAS"
    return f"{version}\n(peer)" if is_peer(version) else version


# ---------------------------------------------------------------- figure helpers


def context_line(doc):
    """GPU, SM clock and date, shared by every title. The device's clock is its maximum; the clock
    the runs had is the range of their measured means, when the results carry them."""
    device = doc["device"]
    parts = [device["name"]]
    measured = [r["sm_clock_mhz"] for r in doc["runs"] if is_type(r.get("sm_clock_mhz"), float)]
    if measured:
        parts.append(f"SM clock {min(measured):.0f}–{max(measured):.0f} MHz in the runs")
    elif "sm_clock_mhz" in device:
        parts.append(f"SM clock up to {device['sm_clock_mhz']:.0f} MHz (the runs' clock not recorded)")
    if doc.get("date"):
        parts.append(doc["date"][:10])
    return " · ".join(parts)


def new_figure(width, height, nrows=1):
    fig, axes = plt.subplots(nrows, 1, figsize=(width, height), layout="constrained",
                             squeeze=False)
    return fig, axes[:, 0]


def finish_figure(fig, doc, title, notes=()):
    fig.suptitle(f"{title}\n{context_line(doc)}", fontsize=12)
    footer = [f"git {doc['git']}"] if doc.get("git") else []
    footer += list(notes)
    if footer:
        fig.supxlabel(textwrap.fill(" · ".join(footer), 160), x=0.99, ha="right",
                      fontsize=7, color="0.4")




# A black-edged red cross stands out on any bar or line colour, red ones included.
FAIL_STYLE = {"marker": "X", "markerfacecolor": FAIL_COLOR, "markeredgecolor": "black",
              "markeredgewidth": 0.8, "linestyle": "none"}


def fail_handle():
    return Line2D([], [], markersize=9, label="FAIL (wrong result)", **FAIL_STYLE)


def mark_failures(ax, points):
    for x, y in points:
        ax.plot(x, y, markersize=11, zorder=4, **FAIL_STYLE)


# ---------------------------------------------------------------- ladder chart


def ladder_bar(ax, x, width, run, color, fade):
    """One run's bar with its ratio-to-cuBLAS label; returns whether it failed."""
    ax.bar(x, run["tflops"], width, color=FADED_COLOR if fade else color,
           alpha=FADED_ALPHA if fade else 1.0)
    failed = not run["pass"]
    text_color = FADED_COLOR if fade else (FAIL_COLOR if failed else "black")
    # A failed run's label starts above its FAIL marker; the white box keeps it
    # legible where it crosses the cuBLAS lines.
    ax.annotate(ratio_text(run), (x, run["tflops"]), xytext=(0, 9 if failed else 3),
                textcoords="offset points", rotation=90, ha="center", va="bottom", fontsize=7,
                color=text_color, bbox={"boxstyle": "square,pad=0.1", "facecolor": "white",
                                        "edgecolor": "none", "alpha": 0.8})
    return failed


def ladder_ticks(ax, at_size, versions, faded):
    techniques = {version: run["technique"] for (version, _, _), run in at_size.items()}
    ax.set_xticks(range(len(versions)))
    ax.set_xticklabels([f"{v}\n{textwrap.fill(techniques[v], 20)}" for v in versions], fontsize=8)
    for label, version in zip(ax.get_xticklabels(), versions):
        if faded(version):
            label.set_color(FADED_COLOR)


def legend_in_columns(groups, rest):
    """Handles for a legend of one column per group (each a dtype's bars and lines), then `rest`
    in as many more columns, padded with blank entries: matplotlib fills a legend column by column."""
    rows = max(len(g) for g in groups)
    blank = lambda: Line2D([], [], linestyle="none", label=" ")
    handles = [h for g in groups for h in g + [blank() for _ in range(rows - len(g))]]
    handles += rest + [blank() for _ in range(-len(rest) % rows)]
    return handles, len(handles) // rows


def draw_ladder(doc, runs, size, upto, out_dir):
    at_size = runs_at_size(runs, size)
    versions = rungs(sorted_versions(at_size))
    peers = [v for v in sorted_versions(at_size) if is_peer(v)]
    dtypes = present_dtypes(at_size)

    def faded(version):
        return upto is not None and version_key(version) > version_key(upto)

    # At least as wide as the legend's four columns above the axes.
    fig, (ax,) = new_figure(max(11.0, 1.2 * len(versions) + 2.5), 6.5)
    # Headroom above the peak line for the rotated labels.
    ax.set_ylim(0, max([DENSE_PEAK_TFLOPS] + [r["tflops"] for r in at_size.values()]) * 1.25)
    width = 0.8 / len(dtypes)
    # Legend columns pair each dtype's bars with its cuBLAS line (and its peers' lines).
    handles, failures, groups = [], [], []
    for j, dtype in enumerate(dtypes):
        offset = (j - (len(dtypes) - 1) / 2) * width
        group = [Patch(color=DTYPE_COLORS[dtype], label=dtype)]
        for i, version in enumerate(versions):
            run = at_size.get((version, dtype, size))
            if run and ladder_bar(ax, i + offset, width, run, DTYPE_COLORS[dtype], faded(version)):
                failures.append((i + offset, run["tflops"]))
        baseline = at_size.get((BASELINE, dtype, size))
        if baseline:
            group.append(ax.axhline(baseline["tflops"], color=DTYPE_COLORS[dtype], linestyle=":",
                                    linewidth=1.8,
                                    label=f"cuBLAS {dtype}: {baseline['tflops']:.0f} TFLOPS"))
        for peer in peers:
            run = at_size.get((peer, dtype, size))
            if run:
                group.append(ax.axhline(run["tflops"], color=DTYPE_COLORS[dtype], linewidth=1.4,
                                        linestyle=peer_style(peers, peer)["linestyle"],
                                        label=f"{peer} {dtype}: {run['tflops']:.0f} TFLOPS"
                                              + ("" if run["pass"] else " (FAIL)")))
        handles += group
        groups.append(group)
    handles.append(ax.axhline(DENSE_PEAK_TFLOPS, color="black", linestyle="--", linewidth=1.2,
                              label=PEAK_LABEL))
    mark_failures(ax, failures)
    if failures:
        handles.append(fail_handle())
    if any(faded(v) for v in versions):
        handles.append(Patch(color=FADED_COLOR, alpha=FADED_ALPHA, label=f"after {upto}"))

    ladder_ticks(ax, at_size, versions, faded)
    ax.set_ylabel("TFLOPS")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    columns = 4
    if peers:  # more lines per dtype than the four columns would keep together
        handles, columns = legend_in_columns(groups, handles[sum(len(g) for g in groups):])
    ax.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.01), ncol=columns, fontsize=8,
              frameon=False)
    finish_figure(fig, doc, f"GEMM ladder: TFLOPS at M=N=K={size}, {' and '.join(dtypes)}")
    charts.save_figure(fig, out_dir, f"ladder_upto_{upto}" if upto else "ladder")


# ---------------------------------------------------------------- sweep chart


def skipped_notes(doc, dtype):
    return [f"not run: {s['version']} at {s['m']}³ ({s['reason']})"
            for s in doc.get("skipped", []) if s["dtype"] == dtype]


def version_colors(versions):
    """tab10 tells up to ten versions apart; past that a gradient keeps the ladder order legible."""
    ladder = rungs(versions)
    if len(ladder) <= 10:
        return {v: matplotlib.colormaps["tab10"](i) for i, v in enumerate(ladder)}
    return {v: matplotlib.colormaps["viridis"](i / (len(ladder) - 1)) for i, v in enumerate(ladder)}


def draw_sweep(doc, runs, dtype, out_dir):
    of_dtype = {key: run for key, run in runs.items() if key[1] == dtype}
    sizes = sorted({s for _, _, s in of_dtype})
    versions = sorted_versions(of_dtype)
    colors = version_colors(versions)
    peers = [v for v in versions if is_peer(v)]
    fig, (ax,) = new_figure(10.0, 6.0)
    failures = []
    for version in versions:
        series = [of_dtype[(version, dtype, s)] for s in sizes if (version, dtype, s) in of_dtype]
        xs, ys = [r["m"] for r in series], [r["tflops"] for r in series]
        if version == BASELINE:
            ax.plot(xs, ys, color="black", linestyle="--", linewidth=2, marker="s",
                    label="cuBLAS", zorder=3)
        elif is_peer(version):
            ax.plot(xs, ys, linewidth=1.8, label=f"{version} (peer)", zorder=3, **peer_style(peers, version))
        else:
            ax.plot(xs, ys, color=colors[version], marker="o", label=version)
        failures += [(r["m"], r["tflops"]) for r in series if not r["pass"]]
    mark_failures(ax, failures)
    handles, _ = ax.get_legend_handles_labels()
    if failures:
        handles.append(fail_handle())

    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([str(s) for s in sizes])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("matrix size M = N = K")
    ax.set_ylabel("TFLOPS")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=9)
    finish_figure(fig, doc, f"GEMM TFLOPS against size, {dtype}", skipped_notes(doc, dtype))
    charts.save_figure(fig, out_dir, f"sweep_{dtype}")


# ---------------------------------------------------------------- profile chart


PROFILE_METRICS = (("tensor_pipe_pct", "tensor pipe active %", "tab:green"),
                   ("dram_pct", "DRAM throughput %", "tab:purple"))


def profile_panel(ax, runs, dtype, versions):
    """Grouped bars of the ncu figures, one group per version, for one dtype."""
    for j, (field, label, color) in enumerate(PROFILE_METRICS):
        xs = [i + (j - 0.5) * 0.38 for i in range(len(versions))]
        bars = ax.bar(xs, [run["profile"][field] for run in runs], 0.38, color=color, label=label)
        ax.bar_label(bars, fmt="%.0f%%", fontsize=7, padding=2)
    ax.set_xticks(range(len(versions)))
    ax.set_xticklabels([display_name(v) + ("" if run["pass"] else "\nFAIL")
                        for v, run in zip(versions, runs)], fontsize=8)
    for tick, run in zip(ax.get_xticklabels(), runs):
        if not run["pass"]:
            tick.set_color(FAIL_COLOR)
    ax.set_xlim(-0.6, len(versions) - 0.4)
    ax.set_ylim(0, 110)
    ax.set_ylabel(f"{dtype}: % of peak (ncu)")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def draw_profile(doc, runs, size, out_dir):
    if not any("profile" in r for r in doc["runs"]):
        print("profile chart skipped: the results hold no ncu figures")
        return
    profiled = {key: run for key, run in runs.items() if key[2] == size and "profile" in run}
    if not profiled:
        print(f"profile chart skipped: no ncu figures at size {size}")
        return
    dtypes = present_dtypes(profiled)
    panels = [(d, [v for v in sorted_versions(profiled) if (v, d, size) in profiled]) for d in dtypes]
    widest = max(len(versions) for _, versions in panels)
    fig, axes = new_figure(max(7.0, 1.3 * widest + 3.5), 1.5 + 3.5 * len(dtypes), nrows=len(dtypes))
    for ax, (dtype, versions) in zip(axes, panels):
        profile_panel(ax, [profiled[(v, dtype, size)] for v in versions], dtype, versions)
    axes[0].legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=9)
    finish_figure(fig, doc, f"ncu utilisation at M=N=K={size}")
    charts.save_figure(fig, out_dir, "profile")


# ---------------------------------------------------------------- energy chart


ENERGY_METRICS = (("tflops_per_w", "TFLOPS per watt", 1.0, "%.2f"),
                  ("tensor_util", "% of the tensor peak\nat the measured clock", 100.0, "%.0f%%"))


def under_load(runs, dtype, size):
    """(name, figures) per version with a sustained run at this size and dtype, then cuBLAS's
    figures from the run of the last of them (cuBLAS runs once per version's sustained part)."""
    rows = [(v, runs[(v, dtype, size)]["sustained"]) for v in sorted_versions(runs)
            if (v, dtype, size) in runs and "sustained" in runs[(v, dtype, size)]]
    if not rows:
        return []
    return [(v, s["version"]) for v, s in rows] + [(BASELINE, rows[-1][1]["cublas"])]


def draw_energy(doc, runs, size, out_dir):
    dtypes = [d for d in present_dtypes(runs) if under_load(runs, d, size)]
    if not dtypes:
        print(f"energy chart skipped: the results hold no sustained runs at size {size}")
        return
    panels = {d: under_load(runs, d, size) for d in dtypes}
    names = [name for name, _ in panels[dtypes[0]]]
    fig, axes = new_figure(max(7.0, 1.1 * len(names) + 3.5), 1.5 + 3.2 * len(ENERGY_METRICS), nrows=len(ENERGY_METRICS))
    width = 0.8 / len(dtypes)
    for ax, (field, label, scale, fmt) in zip(axes, ENERGY_METRICS):
        for j, dtype in enumerate(dtypes):
            figures = dict(panels[dtype])
            drawn = [i for i, n in enumerate(names) if n in figures and figures[n].get(field) is not None]
            xs = [i + (j - (len(dtypes) - 1) / 2) * width for i in drawn]
            values = [figures[names[i]][field] * scale for i in drawn]
            bars = ax.bar(xs, values, width, label=dtype, color=("tab:blue", "tab:orange")[j % 2])
            ax.bar_label(bars, fmt=fmt, fontsize=7, padding=2)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels([display_name(n) for n in names], fontsize=8)
        ax.set_ylabel(label)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    axes[0].legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=9)
    seconds = runs_seconds(runs, dtypes[0], size)
    finish_figure(fig, doc, f"Under a sustained load ({seconds:g} s per kernel) at M=N=K={size}")
    charts.save_figure(fig, out_dir, "energy")


def runs_seconds(runs, dtype, size):
    return next(run["sustained"]["seconds"] for (v, d, s), run in runs.items()
                if d == dtype and s == size and "sustained" in run)


# ---------------------------------------------------------------- LLM suite charts


def is_llm_suite(doc):
    """A file of `ladder --suite llm`: it alone records the HBM read limit."""
    return "hbm_read_gbps" in doc


def llm_shapes(runs):
    """The (m, n, k) of `runs`, ordered by M, then by layer (N×K) in the order the runs first name it."""
    layers = list(dict.fromkeys((r["n"], r["k"]) for r in runs))
    return sorted({(r["m"], r["n"], r["k"]) for r in runs}, key=lambda s: (s[0], layers.index(s[1:])))


def dtypes_of(runs):
    return [d for d in DTYPES if any(r["dtype"] == d for r in runs)]


def shape_axis(ax, shapes):
    """A tick per shape, named N×K; a rule between two M, and each M named above its shapes."""
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels([f"{n}×{k}" for _, n, k in shapes], rotation=90, fontsize=6)
    ax.set_xlim(-0.5, len(shapes) - 0.5)
    for m in sorted({m for m, _, _ in shapes}):
        at = [i for i, s in enumerate(shapes) if s[0] == m]
        if at[0] > 0:
            ax.axvline(at[0] - 0.5, color="0.75", linewidth=0.8)
        ax.text((at[0] + at[-1]) / 2, 1.01, f"M={m}", transform=ax.get_xaxis_transform(), ha="center",
                va="bottom", fontsize=8)


def llm_panel(ax, runs, field, scale=1.0):
    """One dtype: a line per kernel through `field` (times `scale`) at each shape it ran, failures
    marked; returns whether any failed."""
    shapes = llm_shapes(runs)
    by_key = {(r["version"], r["m"], r["n"], r["k"]): r for r in runs}
    versions = sorted({r["version"] for r in runs}, key=version_key)
    colors, peers = version_colors(versions), [v for v in versions if is_peer(v)]
    failures = []
    for version in versions:
        series = [(i, by_key[(version, *s)]) for i, s in enumerate(shapes) if (version, *s) in by_key]
        failures += [(i, run[field] * scale) for i, run in series if not run["pass"]]
        # A gap (NaN) between two M: a line joins the layers of one M, not one M to the next.
        xs, ys = [], []
        for j, (i, run) in enumerate(series):
            if j and series[j - 1][1]["m"] != run["m"]:
                xs.append(math.nan)
                ys.append(math.nan)
            xs.append(i)
            ys.append(run[field] * scale)
        if version == BASELINE:
            ax.plot(xs, ys, color="black", linestyle="--", linewidth=1.5, marker="s", markersize=3,
                    label="cuBLAS", zorder=3)
        elif is_peer(version):
            ax.plot(xs, ys, linewidth=1.2, markersize=3, label=f"{version} (peer)", zorder=3,
                    **peer_style(peers, version))
        else:
            ax.plot(xs, ys, color=colors[version], marker="o", markersize=3, linewidth=1.2, label=version)
    mark_failures(ax, failures)
    shape_axis(ax, shapes)
    ax.grid(axis="y", alpha=0.3)
    return bool(failures)


def llm_legend(axes, failed):
    handles, _ = axes[0].get_legend_handles_labels()
    if failed:
        handles.append(fail_handle())
    axes[0].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=9)


LLM_TITLE = "LLM layers (Llama-3 8B and 70B, y = x·Wᵀ, W is N×K), the L2 flushed before every launch"


def draw_llm_ratio(doc, out_dir):
    dtypes = dtypes_of(doc["runs"])
    fig, axes = new_figure(16.0, 1.5 + 4.0 * len(dtypes), nrows=len(dtypes))
    failed = False
    for ax, dtype in zip(axes, dtypes):
        failed |= llm_panel(ax, [r for r in doc["runs"] if r["dtype"] == dtype], "ratio_vs_cublas")
        ax.set_ylabel(f"{dtype}: ratio to cuBLAS\n(above 1: faster)")
    llm_legend(axes, failed)
    finish_figure(fig, doc, f"{LLM_TITLE}: ratio to cuBLAS by shape",
                  ["shapes by M (tokens), then by layer, named by N×K"])
    charts.save_figure(fig, out_dir, "llm_ratio")


def draw_llm_bandwidth(doc, out_dir):
    measured = [r for r in doc["runs"] if "weight_gbps" in r]
    if not measured:
        print("llm_bandwidth chart skipped: no run records a bandwidth of W (they do at M <= 128)")
        return
    limit = doc["hbm_read_gbps"] / 1e3
    dtypes = dtypes_of(measured)
    fig, axes = new_figure(12.0, 1.5 + 4.0 * len(dtypes), nrows=len(dtypes))
    failed = False
    for ax, dtype in zip(axes, dtypes):
        runs = [r for r in measured if r["dtype"] == dtype]
        failed |= llm_panel(ax, runs, "weight_gbps", 1e-3)
        ax.axhline(limit, color="black", linewidth=2, label=f"HBM read limit, measured: {limit:.2f} TB/s")
        # Each shape's plain read of W's bytes: below the limit on small layers, where a launch's fixed
        # cost is a large part of the time.
        reads = {(r["m"], r["n"], r["k"]): r["read_gbps"] / 1e3 for r in runs if "read_gbps" in r}
        at = [(i, reads[s]) for i, s in enumerate(llm_shapes(runs)) if s in reads]
        if at:
            ax.scatter(*zip(*at), marker="_", s=120, linewidths=2.5, color="black", zorder=4,
                       label="our read kernel over W's bytes alone")
        ax.set_ylim(0, 1.08 * max([limit] + [r["weight_gbps"] / 1e3 for r in runs] + list(reads.values())))
        ax.set_ylabel(f"{dtype}: bandwidth of W, TB/s")
    llm_legend(axes, failed)
    finish_figure(fig, doc, "LLM layers at M ≤ 128: bandwidth of W against the HBM read limit",
                  [LLM_TITLE, "bandwidth of W: its bytes (N·K elements) over the median time; a read of W's "
                   "bytes alone is timed alike",
                   "shapes by M (tokens), then by layer, named by N×K"])
    charts.save_figure(fig, out_dir, "llm_bandwidth")


def render_llm(doc, args):
    if args.upto:
        raise ResultsError("--upto fades the versions of the ladder chart, which an LLM-suite file does not give")
    prepare_output(args.out)
    draw_llm_ratio(doc, args.out)
    draw_llm_bandwidth(doc, args.out)


# ---------------------------------------------------------------- main


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Draw the GEMM ladder charts (ladder, sweep per dtype, ncu profile) as PNG "
                    "and SVG from a results JSON written by the ladder benchmark, or the LLM suite's "
                    "two charts from a file of `ladder --suite llm`.")
    parser.add_argument("results", help="results JSON written by the ladder benchmark")
    parser.add_argument("--out", metavar="DIR",
                        help="directory for the charts, created if missing (default: plots/<GPU>/ "
                             "of this project, GPU being the results file's name without .json: "
                             "where `make plots` draws results/<GPU>.json)")
    parser.add_argument("--upto", metavar="VERSION",
                        help="fade the versions after VERSION in the ladder chart and write it "
                             "as ladder_upto_VERSION, for that version's docs page")
    parser.add_argument("--size", type=int, default=8192, metavar="S",
                        help="M=N=K of the runs the ladder and profile charts show (default: 8192)")
    args = parser.parse_args(argv)
    if args.out is None:
        stem = os.path.splitext(os.path.basename(args.results))[0]
        args.out = os.path.join(charts.ROOT, "plots", stem)
    return args



def load_matplotlib():
    """Import pyplot and the rest into this module's globals; False, after one line on stderr, without them."""
    global matplotlib, plt, Line2D, Patch, NullLocator
    plt = charts.import_pyplot(PROG)
    if plt is None:
        return False
    import matplotlib
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import NullLocator
    return True


def prepare_output(out):
    plt.rcParams["svg.hashsalt"] = "gemm-ladder"  # stable SVG ids across runs
    os.makedirs(out, exist_ok=True)


def render(doc, args):
    if is_llm_suite(doc):
        return render_llm(doc, args)
    runs = square_runs(doc)
    # Everything that can reject the arguments runs before the first file is written.
    check_upto(runs, args.upto)
    runs_at_size(runs, args.size)
    prepare_output(args.out)
    draw_ladder(doc, runs, args.size, args.upto, args.out)
    for dtype in present_dtypes(runs):
        draw_sweep(doc, runs, dtype, args.out)
    draw_profile(doc, runs, args.size, args.out)
    draw_energy(doc, runs, args.size, args.out)


def main(argv=None):
    args = parse_args(argv)
    if not load_matplotlib():
        return 1
    return charts.draw(PROG, args.results, args.out, load_results, lambda doc: render(doc, args), ResultsError)


if __name__ == "__main__":
    sys.exit(main())
