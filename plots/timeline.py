#!/usr/bin/env python3
"""Draw one CTA's timeline from a kernel trace, and compute the figures the pages quote from it.

Usage: timeline.py TRACE.json [--out DIR] [--stem NAME] [--window-us W] [--block B] [--figures FILE]

The chart (STEM.png and STEM.svg in --out) is a Gantt chart of one CTA: one row per lane (a role:
"producer", "consumer 1", "consumer 2"; a version with one warpgroup has the one lane "warpgroup"),
its events as bars coloured by state, over the first W µs (default 40) after the CTA's first event.
The figures, printed and, with --figures, written as JSON, are those of the same CTA, over all of
its events: for each consumer lane (a lane with compute events) the fraction of its time spent
waiting on `full`, and the gaps between its tiles, from a tile's last compute end to the next
tile's first compute start (their median and maximum, in µs).

The trace format (one JSON object; the tracing build's device half writes it):
  version   str       the kernel version, vN_name (e.g. "v4_two_consumers")
  dtype     str       "fp16" or "bf16"
  m, n, k   int       the problem size, each > 0
  device    object    {"name": str, ...}: the GPU (more fields of its description may follow)
  date      str       when the trace was taken, ISO 8601 (UTC)
  git       str       the commit the kernel was built from
  timer     str       "globaltimer_ns": timestamps are %globaltimer readings, in ns
  ctas      list      the traced CTAs, at least one, each:
    block   int       blockIdx.x, ≥ 0, no two CTAs alike
    sm      int       the SM it ran on (%smid), ≥ 0
    lanes   list      its roles, at least one, each:
      name    str       the role, not empty, no two lanes of a CTA alike
      events  list      what the role did, at least one, sorted by start, none overlapping the
                        one before (one may start where the one before ends), each:
        state    str    "wait": waiting on a barrier; "load": issuing TMA loads; "compute": MMAs
                        issued until they complete; "store": the epilogue
        start    int    ns, ≥ 0
        end      int    ns, ≥ start
        tile     int    optional, ≥ 0: the output tile the event works for; a lane's tiles come
                        one after another (no tile again once a later one began)
        barrier  str    optional, for wait only: "full" or "empty", the barrier waited on
No other fields are allowed (a misspelt one is an error, not ignored), except in device.

The same trace always gives byte-identical files. A trace that is unreadable or does not follow
the format gives one line on stderr, naming the place (e.g. `ctas[0].lanes[1].events[3]: end 100
before start 200`), and exit status 2; an interpreter without matplotlib gives one line naming the
one to use and exit status 1.
"""

import argparse
import json
import math
import os
import re
import statistics
import sys

import charts
import textwrap

# matplotlib is imported by load_matplotlib(), after the arguments are parsed: --help, and the
# message naming the interpreter to use, work without it.
matplotlib = plt = Patch = None

PROG = "timeline.py"
DEFAULT_OUT = os.path.join(charts.ROOT, "plots", "timelines")
DEFAULT_WINDOW_US = 40.0
DTYPES = ("fp16", "bf16")
VERSION_RE = re.compile(r"v(\d+)_.")
TIMER = "globaltimer_ns"
STATES = ("wait", "load", "compute", "store")
BARRIERS = ("full", "empty")

# Fields of each level, with the JSON type each must have.
TOP_FIELDS = {"version": str, "dtype": str, "m": int, "n": int, "k": int, "device": dict,
              "date": str, "git": str, "timer": str, "ctas": list}
DEVICE_FIELDS = {"name": str}
CTA_FIELDS = {"block": int, "sm": int, "lanes": list}
LANE_FIELDS = {"name": str, "events": list}
EVENT_FIELDS = {"state": str, "start": int, "end": int}
EVENT_OPTIONAL = {"tile": int, "barrier": str}
TYPE_NAMES = {str: "a string", int: "an integer", dict: "an object", list: "a list"}

# How each kind of bar looks, and its legend entry: (state, barrier) for waits, state otherwise.
BAR_STYLES = {
    ("wait", "full"): ({"facecolor": "0.72"}, "wait on full (the stage's data not there yet)"),
    ("wait", "empty"): ({"facecolor": "0.88", "hatch": "////", "edgecolor": "0.55"},
                        "wait on empty (the stage still being read)"),
    ("wait", None): ({"facecolor": "0.80", "hatch": "..", "edgecolor": "0.55"},
                     "wait on another barrier (v2: __syncthreads; ping-pong: its turn)"),
    "load": ({"facecolor": "tab:blue"}, "load (issuing TMA copies)"),
    "compute": ({"facecolor": "tab:green"}, "compute (MMAs issued until complete)"),
    "store": ({"facecolor": "tab:orange"}, "store (epilogue)"),
}
BAR_HEIGHT = 0.6


class TraceError(Exception):
    """The trace cannot be read or drawn; the message is the one line shown to the user."""


# ---------------------------------------------------------------- input


def is_type(value, kind):
    # JSON true/false load as bool, which Python would otherwise accept as an int.
    if isinstance(value, bool):
        return False
    return isinstance(value, kind)


def check_fields(obj, where, required, optional=None, open_ended=False):
    if not isinstance(obj, dict):
        raise TraceError(f"{where}: not a JSON object")
    known = {**required, **(optional or {})}
    for name in required:
        if name not in obj:
            raise TraceError(f"{where}: no field '{name}'")
    for name, value in obj.items():
        if name not in known:
            if open_ended:
                continue
            raise TraceError(f"{where}: unknown field '{name}'")
        if not is_type(value, known[name]):
            raise TraceError(f"{where}: field '{name}' is not {TYPE_NAMES[known[name]]}")


def one_of(value, allowed):
    return f"'{value}', expected one of {', '.join(allowed)}"


def check_event(event, where):
    check_fields(event, where, EVENT_FIELDS, EVENT_OPTIONAL)
    if event["state"] not in STATES:
        raise TraceError(f"{where}: state {one_of(event['state'], STATES)}")
    if event["start"] < 0:
        raise TraceError(f"{where}: start {event['start']} is negative")
    if event["end"] < event["start"]:
        raise TraceError(f"{where}: end {event['end']} before start {event['start']}")
    if event.get("tile", 0) < 0:
        raise TraceError(f"{where}: tile {event['tile']} is negative")
    if "barrier" in event:
        if event["state"] != "wait":
            raise TraceError(f"{where}: a barrier on a {event['state']} event (only waits have one)")
        if event["barrier"] not in BARRIERS:
            raise TraceError(f"{where}: barrier {one_of(event['barrier'], BARRIERS)}")


def check_lane(lane, where):
    check_fields(lane, where, LANE_FIELDS)
    if not lane["name"].strip():
        raise TraceError(f"{where}: the name is empty")
    if not lane["events"]:
        raise TraceError(f"{where}: no events")
    previous, tiles_done, tile = None, set(), None
    for i, event in enumerate(lane["events"]):
        here = f"{where}.events[{i}]"
        check_event(event, here)
        if previous is not None and event["start"] < previous["start"]:
            raise TraceError(f"{here}: starts at {event['start']}, before events[{i - 1}] "
                             f"(starting at {previous['start']}): events must be sorted by start")
        if previous is not None and event["start"] < previous["end"]:
            raise TraceError(f"{here}: starts at {event['start']}, before events[{i - 1}] "
                             f"ends at {previous['end']}: events of a lane must not overlap")
        if "tile" in event and event["tile"] != tile:
            if event["tile"] in tiles_done:
                raise TraceError(f"{here}: tile {event['tile']} again after tile {tile} began: "
                                 "a lane does its tiles one after another")
            if tile is not None:
                tiles_done.add(tile)
            tile = event["tile"]
        previous = event


def check_cta(cta, where):
    check_fields(cta, where, CTA_FIELDS)
    for name in ("block", "sm"):
        if cta[name] < 0:
            raise TraceError(f"{where}: {name} {cta[name]} is negative")
    if not cta["lanes"]:
        raise TraceError(f"{where}: no lanes")
    names = set()
    for j, lane in enumerate(cta["lanes"]):
        check_lane(lane, f"{where}.lanes[{j}]")
        if lane["name"] in names:
            raise TraceError(f"{where}.lanes[{j}]: a second lane named '{lane['name']}'")
        names.add(lane["name"])


def check_trace(doc):
    check_fields(doc, "top level", TOP_FIELDS)
    check_fields(doc["device"], "device", DEVICE_FIELDS, open_ended=True)
    if not VERSION_RE.match(doc["version"]):
        raise TraceError(f"top level: version '{doc['version']}', expected vN_name")
    if doc["dtype"] not in DTYPES:
        raise TraceError(f"top level: dtype {one_of(doc['dtype'], DTYPES)}")
    for name in ("m", "n", "k"):
        if doc[name] <= 0:
            raise TraceError(f"top level: {name} {doc[name]} is not positive")
    if doc["timer"] != TIMER:
        raise TraceError(f"top level: timer '{doc['timer']}', expected '{TIMER}'")
    if not doc["ctas"]:
        raise TraceError("top level: 'ctas' is empty")
    blocks = set()
    for i, cta in enumerate(doc["ctas"]):
        check_cta(cta, f"ctas[{i}]")
        if cta["block"] in blocks:
            raise TraceError(f"ctas[{i}]: a second CTA with block {cta['block']}")
        blocks.add(cta["block"])


def load_trace(path):
    doc = charts.load_json(path, TraceError)
    check_trace(doc)
    return doc


def select_cta(doc, block):
    """The CTA with this block number; the trace's first CTA when block is None."""
    if block is None:
        return doc["ctas"][0]
    for cta in doc["ctas"]:
        if cta["block"] == block:
            return cta
    present = ", ".join(str(c["block"]) for c in doc["ctas"])
    raise TraceError(f"no CTA with block {block}; blocks present: {present}")


# ---------------------------------------------------------------- figures


def cta_origin(cta):
    """The CTA's first event, in ns: the chart's zero."""
    return min(lane["events"][0]["start"] for lane in cta["lanes"])


def cta_end(cta):
    return max(lane["events"][-1]["end"] for lane in cta["lanes"])


def tile_gaps(events):
    """ns from each tile's last compute end to the next tile's first compute start, in the lane's
    order; compute events without a tile are left out."""
    spans = []  # [tile, first compute start, last compute end]
    for event in events:
        if event["state"] != "compute" or "tile" not in event:
            continue
        if spans and spans[-1][0] == event["tile"]:
            spans[-1][2] = event["end"]
        else:
            spans.append([event["tile"], event["start"], event["end"]])
    return [after[1] - before[2] for before, after in zip(spans, spans[1:])]


def gap_figures(gaps):
    if not gaps:
        return {"count": 0, "median_us": None, "max_us": None}
    # Exact: the ns are integers (a median of two, a half), and / rounds once, correctly.
    return {"count": len(gaps), "median_us": statistics.median(gaps) / 1000, "max_us": max(gaps) / 1000}


def lane_figures(lane):
    events = lane["events"]
    span = events[-1]["end"] - events[0]["start"]
    waiting = sum(e["end"] - e["start"] for e in events
                  if e["state"] == "wait" and e.get("barrier") == "full")
    return {
        "name": lane["name"],
        "span_us": span / 1000,
        "wait_full_us": waiting / 1000,
        "wait_full_fraction": round(waiting / span, 4) if span else None,
        "tile_gaps": gap_figures(tile_gaps(events)),
    }


def figures(doc, cta):
    """What a page quotes from the CTA: per consumer lane (one with compute events) its share of
    time waiting on full and its gaps between tiles, then the gaps of all of them together."""
    consumers = [lane for lane in cta["lanes"] if any(e["state"] == "compute" for e in lane["events"])]
    return {
        "version": doc["version"], "dtype": doc["dtype"], "m": doc["m"], "n": doc["n"], "k": doc["k"],
        "device": doc["device"]["name"], "date": doc["date"], "git": doc["git"],
        "block": cta["block"], "sm": cta["sm"],
        "span_us": (cta_end(cta) - cta_origin(cta)) / 1000,
        "consumer_lanes": [lane_figures(lane) for lane in consumers],
        "tile_gaps": gap_figures([g for lane in consumers for g in tile_gaps(lane["events"])]),
    }


def percent(fraction):
    return "n/a" if fraction is None else f"{100 * fraction:.1f}%"


def gaps_text(gaps):
    if not gaps["count"]:
        return "no gap between tiles (fewer than two tiles with a tile number)"
    plural = "gap" if gaps["count"] == 1 else "gaps"
    return (f"gaps between tiles median {gaps['median_us']:g} µs, max {gaps['max_us']:g} µs "
            f"({gaps['count']} {plural})")


def figures_lines(figs):
    lines = [f"block {figs['block']} on SM {figs['sm']}: {figs['span_us']:g} µs from its first event "
             "to its last"]
    for lane in figs["consumer_lanes"]:
        lines.append(f"{lane['name']}: waits on full {percent(lane['wait_full_fraction'])} of its time "
                     f"({lane['wait_full_us']:g} of {lane['span_us']:g} µs); {gaps_text(lane['tile_gaps'])}")
    if not figs["consumer_lanes"]:
        lines.append("no consumer lane: no lane has compute events")
    elif len(figs["consumer_lanes"]) > 1:
        lines.append(f"consumer lanes together: {gaps_text(figs['tile_gaps'])}")
    return lines


def write_figures(figs, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(figs, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(path)


# ---------------------------------------------------------------- chart


def style_key(event):
    return ("wait", event.get("barrier")) if event["state"] == "wait" else event["state"]


def window_bars(events, origin, window_ns):
    """{style key: [(start, width) in µs]} of the events, clipped to the window."""
    bars = {}
    for event in events:
        start, end = event["start"] - origin, min(event["end"] - origin, window_ns)
        if start >= window_ns:
            break
        bars.setdefault(style_key(event), []).append((start / 1000, (end - start) / 1000))
    return bars


def tile_starts(events, origin, window_ns):
    """(µs, tile) where each tile's first event starts, inside the window."""
    starts, tile = [], None
    for event in events:
        if event["start"] - origin >= window_ns:
            break
        if "tile" in event and event["tile"] != tile:
            tile = event["tile"]
            starts.append(((event["start"] - origin) / 1000, tile))
    return starts


def context_line(doc):
    parts = [doc["device"]["name"]]
    if doc["date"]:
        parts.append(doc["date"][:10])
    return " · ".join(parts)


def draw_timeline(doc, cta, figs, window_us, out_dir, stem):
    origin = cta_origin(cta)
    span_ns = cta_end(cta) - origin
    window_ns = min(round(window_us * 1000), span_ns) or 1
    lanes = cta["lanes"]
    fig, ax = plt.subplots(figsize=(11.0, 1.9 + 0.75 * len(lanes)), layout="constrained")
    drawn = set()
    for y, lane in enumerate(lanes):
        for key, bars in window_bars(lane["events"], origin, window_ns).items():
            style, _ = BAR_STYLES[key]
            ax.broken_barh(bars, (y - BAR_HEIGHT / 2, BAR_HEIGHT), linewidth=0, **style)
            drawn.add(key)
        # A label starting in the window's last 4% would stick out of the axes.
        for x, tile in tile_starts(lane["events"], origin, round(0.96 * window_ns)):
            ax.text(x, y - BAR_HEIGHT / 2 - 0.04, f"tile {tile}", fontsize=7, color="0.3",
                    ha="left", va="bottom")
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([lane["name"] for lane in lanes])
    ax.set_ylim(len(lanes) - 0.5, -0.5)  # the first lane on top
    ax.set_xlim(0, window_ns / 1000)
    ax.set_xlabel("µs since the block's first event (%globaltimer)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    handles = [Patch(label=label, linewidth=0, **style)
               for key, (style, label) in BAR_STYLES.items() if key in drawn]
    ax.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.01), ncol=3, fontsize=8,
              frameon=False)

    shown = (f"its first {window_ns / 1000:g} of {span_ns / 1000:g} µs" if window_ns < span_ns
             else f"all its {span_ns / 1000:g} µs")
    title = (f"{doc['version']} {doc['dtype']}, M={doc['m']} N={doc['n']} K={doc['k']}: "
             f"block {cta['block']} on SM {cta['sm']}, {shown}")
    fig.suptitle(f"{title}\n{context_line(doc)}", fontsize=12)
    footer = [f"git {doc['git']}"] if doc["git"] else []
    footer += [f"{lane['name']} waits on full {percent(lane['wait_full_fraction'])} of its time"
               for lane in figs["consumer_lanes"]]
    fig.supxlabel(textwrap.fill(" · ".join(footer), 160), x=0.99, ha="right", fontsize=7, color="0.4")
    charts.save_figure(fig, out_dir, stem)




# ---------------------------------------------------------------- main


def window_type(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive number of µs")
    return value


def stem_type(text):
    if not text or text in (".", "..") or "/" in text or os.sep in text:
        raise argparse.ArgumentTypeError(f"'{text}' is not a file name (no directory, no extension)")
    return text


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Draw one CTA's timeline (a Gantt chart of its lanes: wait, load, compute, "
                    "store) as PNG and SVG from a kernel trace, and print the figures the pages "
                    "quote: per consumer lane its share of time waiting on full and the gaps "
                    "between its tiles. The trace format is described at the top of this script "
                    "and in docs/methodology.md (Timelines).")
    parser.add_argument("trace", help="trace JSON written by the tracing build")
    parser.add_argument("--out", metavar="DIR", default=DEFAULT_OUT,
                        help="directory for the chart, created if missing (default: plots/timelines/ "
                             "of this project)")
    parser.add_argument("--stem", metavar="NAME", type=stem_type,
                        help="file name of the chart, without extension (default: the trace's file "
                             "name without .json)")
    parser.add_argument("--window-us", metavar="W", type=window_type, default=DEFAULT_WINDOW_US,
                        help=f"draw the first W µs after the CTA's first event (default: "
                             f"{DEFAULT_WINDOW_US:g}); the figures cover all of its events")
    parser.add_argument("--block", metavar="B", type=int,
                        help="the CTA to draw, by block number (default: the trace's first CTA)")
    parser.add_argument("--figures", metavar="FILE",
                        help="also write the figures to FILE as JSON")
    args = parser.parse_args(argv)
    if args.stem is None:
        base = os.path.basename(args.trace)
        args.stem = base[:-len(".json")] if base.endswith(".json") and base != ".json" else base
    return args



def load_matplotlib():
    """Import pyplot and the rest into this module's globals; False, after one line on stderr, without them."""
    global plt, Patch
    plt = charts.import_pyplot(PROG)
    if plt is None:
        return False
    from matplotlib.patches import Patch
    return True


def render(doc, args):
    # Everything that can reject the arguments runs before the first file is written.
    cta = select_cta(doc, args.block)
    figs = figures(doc, cta)
    if args.figures and not os.path.isdir(os.path.dirname(args.figures) or os.curdir):
        raise TraceError(f"--figures {args.figures}: no such directory")
    plt.rcParams["svg.hashsalt"] = "gemm-timeline"  # stable SVG ids across runs
    os.makedirs(args.out, exist_ok=True)
    draw_timeline(doc, cta, figs, args.window_us, args.out, args.stem)
    for line in figures_lines(figs):
        print(line)
    if args.figures:
        write_figures(figs, args.figures)


def main(argv=None):
    args = parse_args(argv)
    if not load_matplotlib():
        return 1
    return charts.draw(PROG, args.trace, args.out, load_trace, lambda doc: render(doc, args), TraceError)


if __name__ == "__main__":
    sys.exit(main())
