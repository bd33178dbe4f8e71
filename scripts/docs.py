#!/usr/bin/env python3
"""Keeps docs/ and the README in step with the code and the results, so that no quote can go stale.

  docs.py update [--root DIR]   rewrite every generated block of README.md and docs/*.md (source
                                excerpts, tables from results/h200.json), docs/diffs/*.diff (each
                                version against the one before) and docs/variants/<version>/*.diff
                                (each named variant of <version>/variants.txt against its kernel)
  docs.py check [--root DIR]    exit 1, one line per problem (page, marker, reason), where a page
                                differs from what update would write or a local link is broken
  docs.py images [--root DIR] [--python PY]
                                draw plots/h200/ladder_upto_<version>.{png,svg} for every version
                                page, with plots/plot.py run by PY (it needs matplotlib)

Markers, each alone on its line of a page:
  <!-- excerpt: v0_naive/kernel.cu#kernel -->   followed by a fenced code block that update
      fills with the lines between `// [region:kernel]` and `// [/region:kernel]` of that file
  <!-- table: ladder -->  ...  <!-- /table -->   every version at 8192³ against cuBLAS
  <!-- table: runs v0_naive -->  ...  <!-- /table -->   every run of one version
  <!-- table: readme -->  ...  <!-- /table -->   the README's short ladder: 8192³ fp16 only
The ladder and readme tables list the peers (runs marked "peer": true: someone else's kernels,
measured beside the ladder) in a table of their own below the rungs, when the results have any.
Links in a table are relative to the page that holds it. Markers inside fenced code blocks are
text, not markers. The versions, in ladder order, are those of versions.txt. Standard library only.
"""

import argparse
import difflib
import filecmp
import json
import math
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import variants  # noqa: E402  (scripts/variants.py: the named variants of a version)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = "results/h200.json"  # the GPU the pages discuss
# The FP8 rung: not in versions.txt (its inputs, output and reference are not the 16-bit ladder's),
# built on this rung; its diff against it and its forms' diffs are kept like a version's.
FP8_VERSION, FP8_BASE = "v10_fp8", "v8_deferred_store"
TENSOR_PARALLEL_VERSION = "v11_tensor_parallel"  # a rung with a page and no kernel of its own: no diff
VERSIONS = "versions.txt"  # the ladder, one version a line; `#` starts a comment line
PLOTS = "plots/h200"
LADDER_SIZE = 8192
DTYPES = ("fp16", "bf16")
BASELINE = "cublas"

EXCERPT = re.compile(r"<!-- excerpt: (\S+?)#([\w-]+) -->")
TABLE = re.compile(r"<!-- table: (\w+)((?: \S+)*) -->")
TABLE_END = "<!-- /table -->"
FENCE = re.compile(r"(`{3,})(.*)")
REGION = re.compile(r"\s*// \[(/?)region:([\w-]+)\]\s*")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE_LANGUAGES = {".cu": "cuda", ".cuh": "cuda", ".cpp": "cpp", ".h": "cpp", ".py": "python",
                   ".sh": "bash", ".cmake": "cmake"}


class Problem(Exception):
    """Something update cannot fix by itself; the message says what, in a few words."""


# ---------------------------------------------------------------- inputs


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write_if_changed(path, text):
    """Writes only real changes, so that a second `make docs` touches nothing."""
    if os.path.isfile(path) and read(path) == text:
        return False
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return True


def versions(root):
    """The versions of versions.txt, in ladder order: one a line, comment and blank lines left out."""
    path = os.path.join(root, VERSIONS)
    if not os.path.isfile(path):
        raise SystemExit(f"docs: no {VERSIONS} in {root}: the ladder, one version directory a line")
    names = [line.strip() for line in read(path).splitlines()]
    return [name for name in names if name and not name.startswith("#")]


def pages(root):
    """The pages that may hold generated blocks: README.md and docs/*.md."""
    docs = os.path.join(root, "docs")
    found = ["README.md"] if os.path.isfile(os.path.join(root, "README.md")) else []
    return found + sorted(f"docs/{name}" for name in os.listdir(docs) if name.endswith(".md"))


def load_results(root):
    try:
        return json.loads(read(os.path.join(root, RESULTS)))
    except (OSError, ValueError) as err:
        raise Problem(f"cannot read {RESULTS}: {err}") from None


def region(root, path, name):
    """The lines between `// [region:NAME]` and `// [/region:NAME]`, markers of nested regions left out."""
    full = os.path.join(root, path)
    if not os.path.isfile(full):
        raise Problem(f"no such file {path}")
    lines = read(full).splitlines(keepends=True)
    opens, closes = [], []
    for i, line in enumerate(lines):
        m = REGION.fullmatch(line.rstrip("\n"))
        if m and m.group(2) == name:
            (closes if m.group(1) else opens).append(i)
    if not opens:
        raise Problem(f"no region '{name}' in {path}")
    if len(opens) > 1 or len(closes) > 1:
        raise Problem(f"region '{name}' is marked more than once in {path}")
    if not closes or closes[0] < opens[0]:
        raise Problem(f"region '{name}' in {path} has no closing marker after its opening one")
    return [line for line in lines[opens[0] + 1:closes[0]] if not REGION.fullmatch(line.rstrip("\n"))]


# ---------------------------------------------------------------- tables


def significant(x, digits=3):
    """x to `digits` significant digits, never in exponent form (0.00624, 0.497, 684, 2210)."""
    if x == 0:
        return "0"
    return f"{x:.{max(0, digits - 1 - math.floor(math.log10(abs(x))))}f}"


def ratio_text(ratio):
    # The early rungs sit far below cuBLAS; two significant digits keep them from reading 0.00.
    return f"{ratio:.2f}×" if ratio >= 0.1 else f"{significant(ratio, 2)}×"


def version_link(root, page, version):
    """The version's page (its kernel.cu until it has one), linked from `page`."""
    if version == BASELINE:
        return "cuBLAS"
    target = f"docs/{version}.md"
    if not os.path.isfile(os.path.join(root, target)):
        target = f"{version}/kernel.cu"
    return f"[{version}]({posixpath.relpath(target, posixpath.dirname(page) or '.')})"


def provenance(results):
    d = results["device"]
    return (f"{d['name']}, {d['sm_count']} SMs, maximum SM clock {d['sm_clock_mhz']} MHz; "
            f"`{RESULTS}` from {results['date'][:10]}, git {results['git']}")


def ladder_runs(results, dtype=None):
    """{(version, dtype): run} of the runs at M = N = K = LADDER_SIZE."""
    return {(r["version"], r["dtype"]): r for r in results["runs"]
            if r["m"] == r["n"] == r["k"] == LADDER_SIZE and dtype in (None, r["dtype"])}


def peer_runs(results, dtype=None):
    """{(peer, dtype): run} at M = N = K = LADDER_SIZE, and the peers in the order they first ran."""
    runs = {key: r for key, r in ladder_runs(results, dtype).items() if r.get("peer")}
    return runs, list(dict.fromkeys(peer for peer, _ in runs))


def ladder_table(root, page, results, args):
    if args:
        raise Problem("the ladder table takes no arguments")
    runs = ladder_runs(results)
    lines = [f"| version | technique | fp16 TFLOPS | fp16 vs cuBLAS | bf16 TFLOPS | bf16 vs cuBLAS "
             f"| tensor pipe active (ncu, fp16) |",
             "|---|---|--:|--:|--:|--:|--:|"]
    for version in versions(root) + [BASELINE]:
        measured = [runs.get((version, dtype)) for dtype in DTYPES]
        technique = next((r["technique"] for r in measured if r), "not in this file")
        cells = [version_link(root, page, version), technique]
        for r in measured:
            cells += [significant(r["tflops"]), ratio_text(r["ratio_vs_cublas"])] if r else ["—", "—"]
        profile = (measured[0] or {}).get("profile")
        cells.append(f"{profile['tensor_pipe_pct']:.0f}%" if profile else "—")
        lines.append("| " + " | ".join(cells) + " |")
    peers, names = peer_runs(results)
    if names:
        lines += ["", "| peer (a reference, not a rung) | kernel | fp16 TFLOPS | fp16 vs cuBLAS | bf16 TFLOPS "
                      "| bf16 vs cuBLAS |",
                  "|---|---|--:|--:|--:|--:|"]
        for name in names:
            measured = [peers.get((name, dtype)) for dtype in DTYPES]
            cells = [f"`{name}`", next(r["technique"] for r in measured if r)]
            for r in measured:
                cells += [significant(r["tflops"]), ratio_text(r["ratio_vs_cublas"])] if r else ["—", "—"]
            lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"M = N = K = {LADDER_SIZE}; {provenance(results)}. "
                  "\"vs cuBLAS\" is cuBLAS's median time over the version's, every kernel of a size timed in "
                  "one round-robin with cuBLAS, so a column ranks the kernels as their times do; \"—\": not "
                  "in this file (a rung newer than it: its page names the run that measured it)."]
    return lines


def readme_table(root, page, results, args):
    """The README's ladder: each version's technique, fp16 TFLOPS and ratio to cuBLAS at 8192³."""
    if args:
        raise Problem("the readme table takes no arguments")
    runs = ladder_runs(results, "fp16")
    gpu = results["device"]["name"]
    gpu = gpu[len("NVIDIA "):] if gpu.startswith("NVIDIA ") else gpu
    lines = [f"| version | technique | {LADDER_SIZE}³ fp16 on the {gpu} | vs cuBLAS |",
             "|---|---|---|---|"]
    missing = False
    for version in versions(root) + [BASELINE]:
        r = runs.get((version, "fp16"))
        if r:
            cells = [r["technique"], f"{significant(r['tflops'])} TFLOPS", ratio_text(r["ratio_vs_cublas"])]
        else:
            cells, missing = ["not in this file", "—", "—"], True
        lines.append("| " + " | ".join([version_link(root, page, version)] + cells) + " |")
    peers, names = peer_runs(results, "fp16")
    if names:
        lines += ["", f"| peer (a reference, not a rung) | kernel | {LADDER_SIZE}³ fp16 on the {gpu} | vs cuBLAS |",
                  "|---|---|---|---|"]
        for r in (peers[(name, "fp16")] for name in names):
            lines.append(f"| `{r['version']}` | {r['technique']} | {significant(r['tflops'])} TFLOPS "
                         f"| {ratio_text(r['ratio_vs_cublas'])} |")
    lines += ["", f"From `{RESULTS}` (the ladder on the {gpu}, {results['date'][:10]}, git {results['git']}); "
                  "\"vs cuBLAS\" shares one cuBLAS median per size (one round-robin of every kernel), so the "
                  "column ranks the kernels as their times do"
                  + ("; \"—\": not in this file (a rung newer than it: its page names the run that measured it)."
                     if missing else ".")]
    return lines


def runs_table(root, page, results, args):
    if len(args) != 1:
        raise Problem("the runs table takes one argument, the version")
    version = args[0]
    rows = [r for r in results["runs"] if r["version"] == version]
    skipped = [s for s in results.get("skipped", []) if s["version"] == version]
    if not rows and not skipped:
        raise Problem(f"{RESULTS} has no run of {version}")
    lines = ["| size | dtype | median ms | min ms | max ms | TFLOPS | cuBLAS median ms | vs cuBLAS "
             "| rel_err | result |",
             "|--:|---|--:|--:|--:|--:|--:|--:|--:|---|"]
    entries = [(DTYPES.index(r["dtype"]), r["m"], r) for r in rows]
    entries += [(DTYPES.index(s["dtype"]), s["m"], s) for s in skipped]
    for _, _, e in sorted(entries, key=lambda e: e[:2]):
        shape = f"{e['m']}³" if e["m"] == e["n"] == e["k"] else f"{e['m']}×{e['n']}×{e['k']}"
        if "reason" in e:
            lines.append(f"| {shape} | {e['dtype']} | — | — | — | — | — | — | — | {e['reason']} |")
            continue
        err = f"{e['rel_err']:.2e}" if "rel_err" in e else "—"
        verdict = {True: "PASS", False: "FAIL", None: "unchecked"}[e.get("pass")]
        lines.append(f"| {shape} | {e['dtype']} | {significant(e['ms_median'])} | {significant(e['ms_min'])} "
                     f"| {significant(e['ms_max'])} | {significant(e['tflops'])} "
                     f"| {significant(e['cublas_ms_median'])} | {ratio_text(e['ratio_vs_cublas'])} "
                     f"| {err} | {verdict} |")
    lines += ["", f"{provenance(results)}. cuBLAS's median is that of the cuBLAS launches in the same "
                  "round-robin as this version's: every kernel of a size shares it."]
    return lines


TABLES = {"ladder": ladder_table, "runs": runs_table, "readme": readme_table}


# ---------------------------------------------------------------- pages


class Block:
    """One generated block of a page: lines[start:end] should read `expected`; `problem` says why
    there is nothing to expect, `stale` what check says when the block is out of date."""

    def __init__(self, line, marker, start, end, lines, stale):
        self.line, self.marker, self.start, self.end, self.stale = line, marker, start, end, stale
        self.current = lines[start:end]
        self.expected = None
        self.problem = None


def fence_end(lines, start, fence):
    """Index of the line closing the fence opened at lines[start], or None."""
    for j in range(start + 1, len(lines)):
        if lines[j].rstrip("\n") == fence:
            return j
    return None


def excerpt_block(root, lines, i, path, name):
    opening = FENCE.fullmatch(lines[i + 1].rstrip("\n")) if i + 1 < len(lines) else None
    close = fence_end(lines, i + 1, opening.group(1)) if opening else None
    end = close + 1 if close is not None else i + 1
    block = Block(i + 1, f"excerpt {path}#{name}", i + 1, end, lines,
                  "the quote differs from the source region; make docs rewrites it")
    if opening and close is None:
        block.problem = "its code block is never closed"
        return block
    # A marker written without a code block gets one, in the language of the file's extension.
    fence = opening.group(1) if opening else "```"
    info = opening.group(2) if opening else FENCE_LANGUAGES.get(os.path.splitext(path)[1], "")
    try:
        body = region(root, path, name)
    except Problem as err:
        block.problem = str(err)
        return block
    block.expected = [f"{fence}{info}\n"] + [line if line.endswith("\n") else line + "\n" for line in body]
    block.expected.append(f"{fence}\n")
    return block


def table_block(root, page, lines, i, kind, args, results):
    close = next((j for j in range(i + 1, len(lines)) if lines[j].rstrip("\n") == TABLE_END), None)
    block = Block(i + 1, f"table {' '.join([kind] + args)}", i + 1, close if close is not None else i + 1, lines,
                  f"the table differs from what {RESULTS} gives; make docs rewrites it")
    try:
        if close is None:
            raise Problem(f"no {TABLE_END} after it")
        if kind not in TABLES:
            raise Problem(f"unknown table '{kind}' (known: {', '.join(TABLES)})")
        if isinstance(results, Problem):
            raise results
        block.expected = [line + "\n" for line in TABLES[kind](root, page, results, args)]
    except Problem as err:
        block.problem = str(err)
    return block


def blocks(root, page, lines, results):
    """Every generated block of a page, in order; fenced code that no marker owns is skipped."""
    found, i = [], 0
    while i < len(lines):
        text = lines[i].rstrip("\n")
        excerpt, table, fence = EXCERPT.fullmatch(text), TABLE.fullmatch(text), FENCE.fullmatch(text)
        if excerpt:
            found.append(excerpt_block(root, lines, i, *excerpt.groups()))
            i = max(found[-1].end, i + 1)
        elif table:
            found.append(table_block(root, page, lines, i, table.group(1), table.group(2).split(), results))
            i = max(found[-1].end, i + 1)
        elif fence:
            close = fence_end(lines, i, fence.group(1))
            i = len(lines) if close is None else close + 1
        else:
            i += 1
    return found


def page_blocks(root):
    """(page, its lines, its blocks) for every page."""
    try:
        results = load_results(root)
    except Problem as err:  # a problem only for the pages that have a table
        results = err
    for page in pages(root):
        lines = read(os.path.join(root, page)).splitlines(keepends=True)
        yield page, lines, blocks(root, page, lines, results)


def rewritten(lines, found):
    out, at = [], 0
    for b in found:
        out += lines[at:b.start]
        out += b.expected if b.expected is not None else b.current
        at = b.end
    return "".join(out + lines[at:])


def prose(lines):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None
    for n, line in enumerate(lines, 1):
        m = FENCE.fullmatch(line.rstrip("\n"))
        if m and (fence is None or m.group(1) == fence):
            fence = m.group(1) if fence is None else None
        elif fence is None:
            yield n, line


def anchors(path):
    """The anchors GitHub gives the headings of a Markdown file: lower case, punctuation dropped,
    spaces turned into hyphens."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    return {re.sub(r"[^\w\- ]", "", text.lstrip("#").strip().lower()).replace(" ", "-")
            for _, text in prose(lines) if re.match(r"#{1,6} ", text)}


def broken_links(root, page, lines):
    """(line, target, reason) for each relative link of the page, outside code, that leads nowhere."""
    broken = []
    for n, line in prose(lines):
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            path, _, anchor = target.partition("#")
            if re.match(r"[a-z]+:", path):
                continue
            full = os.path.normpath(os.path.join(root, os.path.dirname(page), path or os.path.basename(page)))
            if not os.path.exists(full):
                broken.append((n, target, "no such file"))
            elif anchor and full.endswith(".md") and anchor not in anchors(full):
                broken.append((n, target, f"no heading with the anchor #{anchor}"))
    return broken


# ---------------------------------------------------------------- diffs


def hunk_range(start, stop):
    """A unified-diff range: 1-based first line and count, as diff -u writes it."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def unified_diff(a, b, a_name, b_name):
    # difflib.unified_diff cannot turn off its "popular line" heuristic, which on files over 200
    # lines treats blank lines and braces as junk and makes hunks that do not read like the change.
    out = [f"--- {a_name}\n", f"+++ {b_name}\n"]
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3):
        out.append(f"@@ -{hunk_range(group[0][1], group[-1][2])} +{hunk_range(group[0][3], group[-1][4])} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += [" " + line for line in a[a1:a2]]
                continue
            out += ["-" + line for line in a[a1:a2]]
            out += ["+" + line for line in b[b1:b2]]
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)


def expected_diffs(root):
    """{docs/diffs/<from>__<to>.diff: text} for each neighbouring pair of versions both present, the
    FP8 rung against its base, and <version>__<version>_<form>.diff for each form of a version beside
    its kernel.cu (pingpong.cu, block_scaled.cu)."""
    names = versions(root)
    pairs = [(f"{a}/kernel.cu", f"{b}/kernel.cu", f"{a}__{b}") for a, b in zip(names, names[1:])]
    pairs.append((f"{FP8_BASE}/kernel.cu", f"{FP8_VERSION}/kernel.cu", f"{FP8_BASE}__{FP8_VERSION}"))
    for v in names + [FP8_VERSION]:
        folder = os.path.join(root, v)
        forms = sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".cu") and f not in ("kernel.cu", "main.cu")) \
            if os.path.isdir(folder) else []
        pairs += [(f"{v}/kernel.cu", f"{v}/{form}.cu", f"{v}__{v}_{form}") for form in forms]
    diffs = {}
    for old_file, new_file, name in pairs:
        if all(os.path.isfile(os.path.join(root, f)) for f in (old_file, new_file)):
            old, new = (read(os.path.join(root, f)).splitlines(keepends=True) for f in (old_file, new_file))
            diffs[f"docs/diffs/{name}.diff"] = unified_diff(old, new, old_file, new_file)
    return diffs


def variant_diffs(root):
    """{docs/variants/<version>/<name>.diff: text} for each named variant of each version, against
    the file it edits (kernel.cu, or the form its `from FILE` names)."""
    diffs = {}
    for version in versions(root):
        if not os.path.isfile(os.path.join(root, version, "kernel.cu")):
            continue
        try:
            for name, edits in variants.load(root, version):
                source = f"{version}/{variants.base(edits)}"
                text = variants.source(root, version, name)
                diffs[f"docs/variants/{version}/{name}.diff"] = unified_diff(
                    read(os.path.join(root, source)).splitlines(keepends=True), text.splitlines(keepends=True),
                    source, f"{version} variant {name}")
        except variants.Problem as err:
            raise Problem(str(err)) from err
    return diffs


def present_diffs(root):
    found = []
    for folder in ("docs/diffs", "docs/variants"):
        for parent, _, names in os.walk(os.path.join(root, folder)):
            found += [os.path.relpath(os.path.join(parent, n), root) for n in names if n.endswith(".diff")]
    return sorted(found)


# ---------------------------------------------------------------- commands


def update(root):
    changed, problems = [], []
    for page, lines, found in page_blocks(root):
        problems += [f"{page}:{b.line}: {b.marker}: {b.problem}" for b in found if b.problem]
        if write_if_changed(os.path.join(root, page), rewritten(lines, found)):
            changed.append(page)
    try:
        diffs = {**expected_diffs(root), **variant_diffs(root)}
    except Problem as err:
        print(f"docs: {err}", file=sys.stderr)
        return 1
    for path, text in diffs.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        if write_if_changed(os.path.join(root, path), text):
            changed.append(path)
    for path in changed:
        print(f"docs: updated {path}")
    for path in present_diffs(root):
        if path not in diffs:  # a pair that no longer neighbours, a variant no longer listed
            os.remove(os.path.join(root, path))
            changed.append(path)
            print(f"docs: removed {path}")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"docs: {len(problems)} marker(s) update cannot fix; see above", file=sys.stderr)
        return 1
    if not changed:
        print("docs: text and diffs already up to date")
    return 0


# Word budgets: a page is a lesson, not a lab notebook. Every word counts, the quoted code and
# SASS too, as `wc -w` counts them: a quote costs the reader the same time as prose.
PAGE_BUDGETS = {"docs/roles.md": 3000, "docs/README.md": 2000}
VERSION_PAGE_BUDGET = 4000
# Pages describe the kernel as it is and what was measured of it, not the order of the work.
BANNED_WORDS = re.compile(r"\bsessions?\b", re.IGNORECASE)


def page_words(text):
    """Words of a page, as `wc -w` counts them."""
    return len(text.split())


def page_problems(root):
    """Pages over their word budget, and banned words in docs/ and README.md."""
    problems = []
    budgets = dict(PAGE_BUDGETS)
    budgets.update({f"docs/{v}.md": VERSION_PAGE_BUDGET for v in versions(root) + [FP8_VERSION, TENSOR_PARALLEL_VERSION]})
    for page, budget in sorted(budgets.items()):
        path = os.path.join(root, page)
        if os.path.isfile(path) and page_words(read(path)) > budget:
            problems.append(f"{page}: {page_words(read(path))} words, over the budget of {budget}")
    pages = ["README.md"] + sorted(f"docs/{f}" for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
    for page in pages:
        path = os.path.join(root, page)
        if not os.path.isfile(path):
            continue
        for n, line in enumerate(read(path).splitlines(), 1):
            if BANNED_WORDS.search(line):
                problems.append(f"{page}:{n}: the word '{BANNED_WORDS.search(line).group(0)}': a page says what "
                                "was measured, not in which run")
    return problems


def check(root):
    problems, counts = [], {"blocks": 0, "diffs": 0}
    problems += page_problems(root)
    for page, lines, found in page_blocks(root):
        counts["blocks"] += len(found)
        for b in found:
            if b.problem or b.current != b.expected:
                problems.append(f"{page}:{b.line}: {b.marker}: {b.problem or b.stale}")
        problems += [f"{page}:{n}: link {target}: {why}" for n, target, why in broken_links(root, page, lines)]
    try:
        diffs = {**expected_diffs(root), **variant_diffs(root)}
    except Problem as err:
        diffs = expected_diffs(root)
        problems.append(str(err))
    for path, text in diffs.items():
        counts["diffs"] += 1
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            problems.append(f"{path}: missing; make docs writes it")
        elif read(full) != text:
            problems.append(f"{path}: differs from the kernels it compares; make docs rewrites it")
    problems += [f"{path}: compares versions that are not neighbours in versions.txt, or a variant no "
                 f"variants.txt lists; make docs removes it" for path in present_diffs(root) if path not in diffs]
    for p in problems:
        print(p)
    if problems:
        print(f"docs: {len(problems)} problem(s)")
        return 1
    print(f"docs: {counts['blocks']} generated blocks and {counts['diffs']} diffs match their sources; "
          "every local link resolves")
    return 0


def images(root, python):
    if subprocess.run([python, "-c", "import matplotlib"], capture_output=True).returncode != 0:
        print(f"docs: {python} cannot import matplotlib, which plots/plot.py needs (make setup installs it)",
              file=sys.stderr)
        return 1
    try:
        measured = {r["version"] for r in load_results(root)["runs"]}
    except Problem as err:
        print(f"docs: {err}", file=sys.stderr)
        return 1
    changed = 0
    for version in versions(root):
        if not os.path.isfile(os.path.join(root, "docs", f"{version}.md")):
            continue
        if version not in measured:
            print(f"docs: no ladder chart for docs/{version}.md yet: {RESULTS} has no run of {version}")
            continue
        # plot.py also redraws the sweep charts; those belong to `make plots`, so only the
        # ladder_upto chart leaves the scratch folder.
        with tempfile.TemporaryDirectory() as scratch:
            done = subprocess.run([python, os.path.join(root, "plots", "plot.py"), os.path.join(root, RESULTS),
                                   "--out", scratch, "--upto", version], capture_output=True, text=True)
            if done.returncode != 0:
                print(f"docs: plots/plot.py --upto {version} failed: {done.stderr.strip()}", file=sys.stderr)
                return 1
            for ext in ("png", "svg"):
                name = f"ladder_upto_{version}.{ext}"
                target = os.path.join(root, PLOTS, name)
                if not (os.path.isfile(target) and filecmp.cmp(os.path.join(scratch, name), target, shallow=False)):
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    shutil.copyfile(os.path.join(scratch, name), target)
                    print(f"docs: updated {PLOTS}/{name}")
                    changed += 1
    if not changed:
        print("docs: ladder charts already up to date")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", default=ROOT, metavar="DIR",
                        help="the project tree to work on (default: the one holding this script)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("update", parents=[common], help="rewrite generated blocks and docs/diffs/")
    commands.add_parser("check", parents=[common], help="exit 1 when README.md or docs/ is stale or has broken links")
    drawn = commands.add_parser("images", parents=[common], help="draw the ladder chart of every version page")
    drawn.add_argument("--python", default=sys.executable, help="interpreter with matplotlib for plots/plot.py")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    if not os.path.isdir(os.path.join(root, "docs")):
        print(f"docs: {root} has no docs/ folder", file=sys.stderr)
        return 2
    if args.command == "update":
        return update(root)
    if args.command == "check":
        return check(root)
    return images(root, args.python)


if __name__ == "__main__":
    sys.exit(main())
