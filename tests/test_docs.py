#!/usr/bin/env python3
"""Checks that docs/ cannot go stale: scripts/docs.py check passes on the tree and fails, naming
the page, marker and reason, on a copy with an edited quote, a missing region, a changed source
or stale results; docs/diffs/ matches the kernels; `make docs` (docs.py update and images) leaves
the tree unchanged; scripts/diff.sh refuses bad names and colours only a terminal.

Usage: python3 tests/test_docs.py [--python PATH] [unittest options]
  --python PATH   interpreter with matplotlib for the ladder charts (default: this one; the
                  chart part of the make-docs check is skipped when it cannot import matplotlib)
Standard library only; run from anywhere.
"""

import json
import glob
import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(REPO, "scripts", "docs.py")
# Not copied into the scratch trees: build products, environments, history.
HEAVY = {".git", "build", ".venv", ".tools", "__pycache__"}


def docs(command, root=REPO, *extra):
    return subprocess.run([sys.executable, DOCS, command, "--root", root, *extra], capture_output=True, text=True)


def copy_tree(dest):
    """The project as make docs sees it, without build products (cheap: sources, docs, plots)."""
    shutil.copytree(REPO, dest, ignore=lambda folder, names: [n for n in names if n in HEAVY])
    return dest


def snapshot(root):
    """{relative path: bytes} of every file under root."""
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, root)] = f.read()
    return files


def first_excerpt(root):
    """(page, marker text, index of the marker line, lines) of the first excerpt in docs/*.md."""
    for name in sorted(os.listdir(os.path.join(root, "docs"))):
        if not name.endswith(".md"):
            continue
        page = os.path.join(root, "docs", name)
        with open(page, encoding="utf-8") as f:
            lines = f.read().splitlines(keepends=True)
        fence = None  # markers shown inside a code block are examples, not markers
        for i, line in enumerate(lines):
            text = line.rstrip("\n")
            m = re.fullmatch(r"<!-- excerpt: (\S+) -->", text)
            if m and fence is None:
                return f"docs/{name}", m.group(1), i, lines
            if text.startswith("```"):
                fence = None if fence else text
    raise AssertionError("no page in docs/ quotes an excerpt")


def write_lines(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(lines))


class Scratch(unittest.TestCase):
    """Each test that changes files works on its own copy of the tree."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test_docs_")
        self.root = copy_tree(os.path.join(self.tmp, "tree"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def assert_reported(self, result, *words):
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        lines = [line for line in result.stdout.splitlines() if all(w in line for w in words)]
        self.assertTrue(lines, f"no line names {words} in:\n{result.stdout}")


class TheTree(unittest.TestCase):
    def test_check_passes(self):
        result = docs("check")
        self.assertEqual(result.returncode, 0, "docs are stale; run `make docs`:\n" + result.stdout + result.stderr)

    def test_diffs_match_the_kernels(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = copy_tree(os.path.join(tmp, "tree"))
            shutil.rmtree(os.path.join(root, "docs", "diffs"), ignore_errors=True)
            self.assertEqual(docs("update", root).returncode, 0)
            fresh = {p: b for p, b in snapshot(root).items() if p.startswith(os.path.join("docs", "diffs", ""))}
            kept = {p: b for p, b in snapshot(REPO).items() if p.startswith(os.path.join("docs", "diffs", ""))}
            self.assertEqual(sorted(kept), sorted(fresh), "docs/diffs/ lists other pairs than make docs writes")
            for path in fresh:
                self.assertEqual(kept[path], fresh[path], f"{path} is stale; run `make docs`")


class Staleness(Scratch):
    def test_edited_quote_is_reported_and_update_restores_it(self):
        page, marker, i, lines = first_excerpt(self.root)
        original = "".join(lines)
        lines[i + 2] = lines[i + 2].rstrip("\n") + "  // edited by hand\n"  # first line inside the fence
        write_lines(os.path.join(self.root, page), lines)
        self.assert_reported(docs("check", self.root), page, marker, "differs")
        self.assertEqual(docs("update", self.root).returncode, 0)
        with open(os.path.join(self.root, page), encoding="utf-8") as f:
            self.assertEqual(f.read(), original)
        self.assertEqual(docs("check", self.root).returncode, 0)

    def test_marker_naming_a_missing_region_is_reported(self):
        page, marker, i, lines = first_excerpt(self.root)
        path = marker.split("#")[0]
        lines[i] = f"<!-- excerpt: {path}#no_such_region -->\n"
        write_lines(os.path.join(self.root, page), lines)
        self.assert_reported(docs("check", self.root), page, f"{path}#no_such_region", "no region")
        self.assertEqual(docs("update", self.root).returncode, 1, "update cannot invent a region")

    def test_marker_naming_a_missing_file_is_reported(self):
        page, marker, i, lines = first_excerpt(self.root)
        lines[i] = "<!-- excerpt: v9_gone/kernel.cu#kernel -->\n"
        write_lines(os.path.join(self.root, page), lines)
        self.assert_reported(docs("check", self.root), page, "v9_gone/kernel.cu#kernel", "no such file")

    def test_changed_source_region_is_reported(self):
        page, marker, _, _ = first_excerpt(self.root)
        path, name = marker.split("#")
        source = os.path.join(self.root, path)
        with open(source, encoding="utf-8") as f:
            text = f.read()
        opening = f"// [region:{name}]\n"
        self.assertIn(opening, text)
        with open(source, "w", encoding="utf-8") as f:
            f.write(text.replace(opening, opening + "// a new first line\n", 1))
        self.assert_reported(docs("check", self.root), page, marker, "differs")

    def test_stale_results_table_is_reported(self):
        results = os.path.join(self.root, "results", "h200.json")
        with open(results, encoding="utf-8") as f:
            text = f.read()
        os.chmod(results, 0o644)  # the committed results are read-only
        with open(results, "w", encoding="utf-8") as f:
            f.write(re.sub(r'"tflops": [0-9.]+', '"tflops": 123.0', text))
        self.assert_reported(docs("check", self.root), "docs/", "table", "results/h200.json")

    def test_changed_kernel_makes_its_diff_stale(self):
        kernel = os.path.join(self.root, "v0_naive", "kernel.cu")
        with open(kernel, "a", encoding="utf-8") as f:
            f.write("// one more line\n")
        self.assert_reported(docs("check", self.root), "docs/diffs/v0_naive__", "differs")


class MakeDocs(Scratch):
    def test_make_docs_changes_nothing(self):
        before = snapshot(self.root)
        update = docs("update", self.root)
        self.assertEqual(update.returncode, 0, update.stdout + update.stderr)
        after = snapshot(self.root)
        changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
        self.assertEqual(changed, [], "make docs changes these files; run it and keep the result")

    def test_every_measured_version_page_has_its_ladder_chart(self):
        # The charts' bytes depend on the matplotlib that drew them (test_plots.py checks that one
        # environment draws the same bytes twice), so here only their presence is checked.
        with open(os.path.join(self.root, "results", "h200.json"), encoding="utf-8") as f:
            measured = {run["version"] for run in json.load(f)["runs"]}
        for page in sorted(glob.glob(os.path.join(self.root, "docs", "v*_*.md"))):
            version = os.path.basename(page)[:-3]
            if version not in measured:
                continue
            for ext in ("png", "svg"):
                chart = os.path.join(self.root, "plots", "h200", f"ladder_upto_{version}.{ext}")
                self.assertTrue(os.path.isfile(chart), f"{chart} is missing; run `make docs`")


class DiffScript(Scratch):
    def diff(self, *args, **kwargs):
        return subprocess.run([os.path.join(self.root, "scripts", "diff.sh"), *args],
                              capture_output=True, text=True, **kwargs)

    def make_version(self, name, change):
        """A copy of v0_naive named `name` whose kernel.cu has `change` applied to its text."""
        shutil.copytree(os.path.join(self.root, "v0_naive"), os.path.join(self.root, name))
        kernel = os.path.join(self.root, name, "kernel.cu")
        with open(kernel, encoding="utf-8") as f:
            text = f.read()
        with open(kernel, "w", encoding="utf-8") as f:
            f.write(change(text))

    def test_bad_names_exit_2_with_one_line(self):
        for args in ([], ["v0_naive"], ["v0_naive", "v9_nope"], ["common", "v0_naive"], ["v0_naive", "../v0_naive"]):
            result = self.diff(*args)
            self.assertEqual(result.returncode, 2, f"diff.sh {args}: {result.stderr}")
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, f"diff.sh {args}: {result.stderr!r}")
            self.assertEqual(result.stdout, "")

    def test_plain_side_by_side_into_a_pipe(self):
        self.make_version("v9_test", lambda t: t.replace("float acc = 0.0f;", "float acc = 0.0f;  // changed"))
        result = self.diff("v0_naive", "v9_test")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("\033[", result.stdout)
        lines = result.stdout.splitlines()
        self.assertIn("v0_naive/kernel.cu", lines[0])
        self.assertIn("v9_test/kernel.cu", lines[0])
        changed = [line for line in lines if "|" in line and "// changed" in line]
        self.assertEqual(len(changed), 1, result.stdout)
        self.assertIn("float acc = 0.0f;", changed[0].split("|")[0], "the left column was cut")

    def test_colour_on_a_terminal(self):
        self.make_version("v9_test", lambda t: t.replace("float acc = 0.0f;", "double acc = 0.0;"))
        leader, follower = pty.openpty()
        env = {**os.environ, "COLUMNS": "120", "TERM": os.environ.get("TERM", "xterm")}
        process = subprocess.Popen([os.path.join(self.root, "scripts", "diff.sh"), "v0_naive", "v9_test"],
                                   stdout=follower, stderr=subprocess.PIPE, env=env)
        os.close(follower)
        output = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closes when diff.sh exits
                break
            if not chunk:
                break
            output += chunk
        os.close(leader)
        self.assertEqual(process.wait(), 0, process.stderr.read())
        process.stderr.close()
        self.assertIn(b"\033[33m", output, "a changed line is not coloured on a terminal")


def main():
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[1:]])


if __name__ == "__main__":
    main()
