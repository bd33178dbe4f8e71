#!/usr/bin/env python3
"""Checks that docs/ and the README cannot go stale: scripts/docs.py check passes on the tree and
fails, naming the page, marker and reason, on a copy with an edited quote or README table, a
missing region, a changed source or stale results; docs/diffs/ matches the kernels, and
docs/variants/ each version's variants.txt (an edit that finds nothing is an error); `make docs`
(docs.py update and images) leaves the tree unchanged; versions.txt alone decides the ladder for
docs.py and the shell scripts; each version's Version.config records every tuning constant of its
constants region; peers in the results are listed apart from the rungs; scripts/diff.sh refuses bad
names and colours only a terminal.

Usage: python3 tests/test_docs.py [--python PATH] [unittest options]
  --python PATH   interpreter with matplotlib for the ladder charts (default: this one; the
                  chart part of the make-docs check is skipped when it cannot import matplotlib)
Standard library only; run from anywhere.
"""

import importlib.util
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

# docs.py as a module: its reading of versions.txt and of source regions is the one this test uses.
_spec = importlib.util.spec_from_file_location("docs_script", DOCS)
docs_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(docs_script)


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


def add_version(root, name):
    """Appends `name` to the ladder of versions.txt under root."""
    with open(os.path.join(root, "versions.txt"), "a", encoding="utf-8") as f:
        f.write(f"{name}\n")


# ---------------------------------------------------------------- Version.config

# The rule the config check enforces, quoted in each of its messages.
CONFIG_RULE = ("rule: every `constexpr int NAME = <integer literal>;` of a version's constants region is a "
               "tuning constant, and its Version.config records it as {\"NAME\", NAME}")
CONSTANT = re.compile(r"(?:(?:static|inline)\s+)*constexpr\s+int\s+(\w+)\s*=\s*([^;]+?)\s*;")
LITERAL = re.compile(r"\d[\w']*")  # 64, 0x40, 1'024, 4u: an integer literal; anything else is derived
VERSION_INIT = re.compile(r"\bmatmul::Version\s+version\s*\{(.*?)\};", re.S)
CONFIG_ENTRY = re.compile(r'\{\s*"(\w+)"\s*,\s*([^{}]*?)\s*\}')


def config_problems(root):
    """One line per way a version of versions.txt breaks CONFIG_RULE, each naming the version and,
    where there is one, the constant. Nothing is passed over: a missing kernel.cu, constants region
    or Version, and a constexpr line of the region that is not `constexpr int NAME = VALUE;`, are
    problems too."""
    problems = []
    for version in docs_script.versions(root):
        path = f"{version}/kernel.cu"
        if not os.path.isfile(os.path.join(root, path)):
            problems.append(f"{version}: no {path} to read its constants and Version.config from; {CONFIG_RULE}")
            continue
        try:
            region = docs_script.region(root, path, "constants")
        except docs_script.Problem as err:
            problems.append(f"{version}: {err}: its tuning constants go between `// [region:constants]` and "
                            f"`// [/region:constants]`; {CONFIG_RULE}")
            continue
        tuning = []
        for line in region:
            code = line.split("//")[0].strip()
            if "constexpr" not in code:
                continue
            m = CONSTANT.fullmatch(code)
            if not m:
                problems.append(f"{version}: `{code}` in its constants region is not one whole "
                                f"`constexpr int NAME = VALUE;` line, so the check cannot tell whether it is a "
                                f"tuning constant; {CONFIG_RULE}")
            elif LITERAL.fullmatch(m.group(2)):
                tuning.append((m.group(1), code))
        with open(os.path.join(root, path), encoding="utf-8") as f:
            init = VERSION_INIT.search(f.read())
        if not init:
            problems.append(f"{version}: {path} has no `const matmul::Version version{{...}};` to read "
                            f"Version.config from; {CONFIG_RULE}")
            continue
        config = {}
        for name, value in CONFIG_ENTRY.findall(init.group(1)):
            config.setdefault(name, value)
        for name, code in tuning:
            if name not in config:
                problems.append(f"{version}: {name}: `{code}` is a tuning constant missing from Version.config; "
                                f"{CONFIG_RULE}")
            elif config[name] != name:
                problems.append(f"{version}: {name}: Version.config records {{\"{name}\", {config[name]}}}, not the "
                                f"constant itself; {CONFIG_RULE}")
    return problems


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


class VersionConfig(unittest.TestCase):
    def test_every_tuning_constant_is_in_the_version_config(self):
        problems = config_problems(REPO)
        self.assertEqual(problems, [], "Version.config misses tuning constants:\n" + "\n".join(problems))


class TheLadder(Scratch):
    """versions.txt alone decides the ladder: docs.py and the shell scripts read it the same way."""

    def write_versions(self, text):
        with open(os.path.join(self.root, "versions.txt"), "w", encoding="utf-8") as f:
            f.write(text)

    def shell_versions(self):
        result = subprocess.run(["bash", "-c", "source scripts/versions.sh && matmul_versions"], cwd=self.root,
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout.splitlines()

    def test_comments_and_blank_lines_are_not_versions(self):
        self.write_versions("# the ladder\n# read by everything\nv0_naive\n\n  v1_tma  \n  # v2_pipelined\nv3_warpspec\n")
        self.assertEqual(docs_script.versions(self.root), ["v0_naive", "v1_tma", "v3_warpspec"])
        self.assertEqual(self.shell_versions(), ["v0_naive", "v1_tma", "v3_warpspec"])

    def test_python_and_shell_read_the_same_ladder(self):
        self.assertEqual(self.shell_versions(), docs_script.versions(self.root))
        self.assertTrue(docs_script.versions(self.root), "versions.txt names no version")

    def test_a_listed_version_gets_its_row_and_its_diff(self):
        shutil.copytree(os.path.join(self.root, "v0_naive"), os.path.join(self.root, "v9_test"))
        last = docs_script.versions(self.root)[-1]
        add_version(self.root, "v9_test")
        self.assert_reported(docs("check", self.root), "README.md", "table readme", "differs")
        self.assertEqual(docs("update", self.root).returncode, 0)
        with open(os.path.join(self.root, "README.md"), encoding="utf-8") as f:
            self.assertIn("| [v9_test](v9_test/kernel.cu) | not in this file | — | — |\n", f.read())
        self.assertTrue(os.path.isfile(os.path.join(self.root, "docs", "diffs", f"{last}__v9_test.diff")))

    def test_diff_refuses_an_unlisted_directory_and_names_the_listed_ones(self):
        shutil.copytree(os.path.join(self.root, "v0_naive"), os.path.join(self.root, "v8_unlisted"))
        self.write_versions("# a short ladder\nv0_naive\nv1_tma\n")
        result = subprocess.run([os.path.join(self.root, "scripts", "diff.sh"), "v0_naive", "v8_unlisted"],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("v8_unlisted", result.stderr)
        self.assertIn("(versions: v0_naive v1_tma)", result.stderr)


class ConfigCheck(Scratch):
    """config_problems itself, on a version written for the purpose: it reports what it must."""

    KERNEL = """namespace v9_config {
// [region:constants]
// The tile.
constexpr int BM = 128;
constexpr int BN = 256;  // a comment
constexpr int STAGES = 4;
constexpr int ROWS = BM / 2;  // derived: not a tuning constant
static_assert(STAGES > 1, "a ring");
// [/region:constants]
const matmul::Version version{
    "v9_config", "a test", matmul, matmul, {{"BM", BM}, {"BN", 256}, {"ROWS", ROWS}}};
}  // namespace v9_config
"""

    def write_kernel(self, text):
        os.makedirs(os.path.join(self.root, "v9_config"), exist_ok=True)
        with open(os.path.join(self.root, "v9_config", "kernel.cu"), "w", encoding="utf-8") as f:
            f.write(text)
        with open(os.path.join(self.root, "versions.txt"), "w", encoding="utf-8") as f:
            f.write("# only the test version\nv9_config\n")

    def test_missing_and_misrecorded_constants_are_named(self):
        self.write_kernel(self.KERNEL)
        problems = config_problems(self.root)
        self.assertEqual(len(problems), 2, "\n".join(problems))
        self.assertTrue(problems[0].startswith('v9_config: BN: Version.config records {"BN", 256}'), problems[0])
        self.assertTrue(problems[1].startswith("v9_config: STAGES: `constexpr int STAGES = 4;` is a tuning "
                                               "constant missing from Version.config"), problems[1])
        self.assertTrue(all(CONFIG_RULE in p for p in problems))

    def test_complete_config_passes(self):
        self.write_kernel(self.KERNEL.replace('{"BN", 256}', '{"BN", BN}, {"STAGES", STAGES}'))
        self.assertEqual(config_problems(self.root), [])

    def test_nothing_is_passed_over(self):
        self.write_kernel(self.KERNEL.replace("constexpr int STAGES = 4;", "constexpr unsigned STAGES = 4;"))
        self.assertTrue(any("`constexpr unsigned STAGES = 4;`" in p for p in config_problems(self.root)))
        self.write_kernel(self.KERNEL.replace("// [region:constants]\n", "").replace("// [/region:constants]\n", ""))
        self.assertTrue(any(p.startswith("v9_config: no region 'constants'") for p in config_problems(self.root)))
        self.write_kernel(self.KERNEL.replace("const matmul::Version version{", "const matmul::Version other{"))
        self.assertTrue(any("no `const matmul::Version version" in p for p in config_problems(self.root)))
        shutil.rmtree(os.path.join(self.root, "v9_config"))
        self.assertTrue(any(p.startswith("v9_config: no v9_config/kernel.cu") for p in config_problems(self.root)))

    def test_a_dropped_entry_of_a_real_kernel_is_named(self):
        for version in docs_script.versions(self.root):
            kernel = os.path.join(self.root, version, "kernel.cu")
            with open(kernel, encoding="utf-8") as f:
                text = f.read()
            try:
                constants = "".join(docs_script.region(self.root, f"{version}/kernel.cu", "constants"))
            except docs_script.Problem:
                continue  # no constants region: test_nothing_is_passed_over covers that report
            for m in re.finditer(r'\{"(\w+)", \1\}(, )?', text):
                name = m.group(1)
                if not re.search(rf"^constexpr int {name} = \d[\w']*;", constants, re.M):
                    continue  # derived, or outside the region: the config may leave it out
                with open(kernel, "w", encoding="utf-8") as f:
                    f.write(text.replace(m.group(0), "", 1))
                self.assertTrue(any(p.startswith(f"{version}: {name}: ") for p in config_problems(self.root)),
                                f"dropping {m.group(0)!r} from {version}'s Version.config went unreported")
                return
        self.fail("no version's Version.config records a tuning constant to drop")


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

    def test_edited_readme_table_is_reported_and_update_restores_it(self):
        readme = os.path.join(self.root, "README.md")
        docs("update", self.root)  # the table as make docs writes it, whatever the state of the tree
        with open(readme, encoding="utf-8") as f:
            original = f.read()
        edited = re.sub(r"\| [0-9.]+ TFLOPS \|", "| 999 TFLOPS |", original, count=1)
        self.assertNotEqual(edited, original, "README.md has no ladder row with a TFLOPS cell")
        with open(readme, "w", encoding="utf-8") as f:
            f.write(edited)
        self.assert_reported(docs("check", self.root), "README.md", "table readme", "differs")
        self.assertEqual(docs("update", self.root).returncode, 0)
        with open(readme, encoding="utf-8") as f:
            self.assertEqual(f.read(), original)

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


class Lessons(Scratch):
    """A page is a lesson: within its word budget, code included, and without the story of runs."""

    def append(self, page, text):
        with open(os.path.join(self.root, page), "a", encoding="utf-8") as f:
            f.write(text)

    def test_a_version_page_over_its_budget_is_reported(self):
        self.append("docs/v3_warpspec.md", "\n" + "word " * 4001 + "\n")
        self.assert_reported(docs("check", self.root), "docs/v3_warpspec.md", "over the budget of 4000")

    def test_the_index_and_roles_have_their_own_budgets(self):
        self.append("docs/README.md", "\n" + "word " * 2001 + "\n")
        self.append("docs/roles.md", "\n" + "word " * 3001 + "\n")
        result = docs("check", self.root)
        self.assert_reported(result, "docs/README.md", "over the budget of 2000")
        self.assert_reported(result, "docs/roles.md", "over the budget of 3000")

    def test_quoted_code_counts_against_the_budget(self):
        with open(os.path.join(self.root, "docs/v3_warpspec.md"), "w", encoding="utf-8") as f:
            f.write("# v3_warpspec\n\n" + "word " * 3000 + "\n```\n" + "code " * 1001 + "\n```\n")
        self.assert_reported(docs("check", self.root), "docs/v3_warpspec.md", "over the budget of 4000")

    def test_the_word_session_is_refused_in_docs_and_readme(self):
        self.append("README.md", "\nIn the last Session we measured it.\n")
        self.append("docs/methodology.md", "\nTwo sessions later it was faster.\n")
        result = docs("check", self.root)
        self.assert_reported(result, "README.md:", "the word 'Session'")
        self.assert_reported(result, "docs/methodology.md:", "the word 'sessions'")


class Peers(Scratch):
    """A peer in the results (a run marked "peer": true) gets a table of its own below the rungs,
    in the README and in the docs index; without one, the tables have none."""

    def write_results(self, results):
        path = os.path.join(self.root, "results", "h200.json")
        os.chmod(path, 0o644)  # the committed results are read-only
        with open(path, "w", encoding="utf-8") as f:
            json.dump(results, f)

    def pages(self):
        for page in ("README.md", os.path.join("docs", "README.md")):
            with open(os.path.join(self.root, page), encoding="utf-8") as f:
                yield page, f.read()

    def test_a_peer_is_listed_apart_from_the_rungs(self):
        with open(os.path.join(self.root, "results", "h200.json"), encoding="utf-8") as f:
            results = json.load(f)
        results["runs"] = [r for r in results["runs"] if not r.get("peer")]  # the committed peers out
        self.write_results(results)
        self.assertEqual(docs("update", self.root).returncode, 0)
        for page, text in self.pages():
            self.assertNotIn("| peer (a reference, not a rung) |", text, page)
        cublas = [r for r in results["runs"] if r["version"] == "cublas" and r["m"] == r["n"] == r["k"] == 8192]
        results["runs"] += [{**r, "version": "cutlass_test", "technique": "a peer for the test", "peer": True}
                            for r in cublas]
        self.write_results(results)
        self.assert_reported(docs("check", self.root), "README.md", "table readme", "differs")
        self.assertEqual(docs("update", self.root).returncode, 0)
        for page, text in self.pages():
            self.assertIn("| peer (a reference, not a rung) |", text, page)
            self.assertIn("| `cutlass_test` | a peer for the test | ", text, page)
            self.assertLess(text.index("| cuBLAS |"), text.index("`cutlass_test`"), f"{page}: a peer among the rungs")


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


class Variants(Scratch):
    """A version's variants.txt names its measured variants; docs/variants/ holds their diffs."""

    VARIANTS = os.path.join(REPO, "scripts", "variants.py")

    def write_variants(self, version, text):
        with open(os.path.join(self.root, version, "variants.txt"), "w", encoding="utf-8") as f:
            f.write(text)

    def test_each_variant_diff_shows_its_edits(self):
        with open(os.path.join(REPO, "docs", "variants", "v4_two_consumers", "two-consumers.diff"), encoding="utf-8") as f:
            diff = f.read()
        removed = [l for l in diff.splitlines() if l.startswith("-") and not l.startswith("---")]
        added = [l for l in diff.splitlines() if l.startswith("+") and not l.startswith("+++")]
        self.assertTrue(any("release_registers<" in l for l in removed), diff)
        self.assertTrue(any("claim_registers<" in l for l in removed), diff)
        self.assertTrue(any(l.startswith("-constexpr int GROUP = 8;") for l in removed), diff)
        self.assertEqual(added, ["+constexpr int GROUP = 1;  // rows of tiles per group of the grouped order (1: row by row)"])

    def test_a_new_variant_needs_make_docs_and_a_dropped_one_is_removed(self):
        self.write_variants("v5_persistent", "stages-3: STAGES=3\ngroup-4: GROUP=4\n")
        self.assert_reported(docs("check", self.root), "docs/variants/v5_persistent/group-4.diff", "missing")
        self.assertEqual(docs("update", self.root).returncode, 0)
        self.assertEqual(docs("check", self.root).returncode, 0)
        self.write_variants("v5_persistent", "group-4: GROUP=4\n")
        self.assert_reported(docs("check", self.root), "docs/variants/v5_persistent/stages-3.diff", "removes it")
        self.assertEqual(docs("update", self.root).returncode, 0)
        self.assertFalse(os.path.exists(os.path.join(self.root, "docs", "variants", "v5_persistent", "stages-3.diff")))

    def test_an_edit_that_finds_nothing_is_an_error_naming_it(self):
        self.write_variants("v5_persistent", "stages-3: STAGES=3\nwrong: NO_SUCH_CONSTANT=3\n")
        result = docs("check", self.root)
        self.assert_reported(result, "v5_persistent/variants.txt", "NO_SUCH_CONSTANT=3", "no `constexpr int NO_SUCH_CONSTANT")
        self.write_variants("v5_persistent", "stages-3: STAGES=3\nwrong: drop this text is nowhere\n")
        self.assert_reported(docs("check", self.root), "drop this text is nowhere", "no line holds")

    def test_bad_lines_and_names_exit_2_with_one_line(self):
        cases = [("stages-3 STAGES=3\n", ["list", "v5_persistent"], "is not `NAME: EDIT"),
                 ("stages-3: STAGES=3\nstages-3: GROUP=1\n", ["list", "v5_persistent"], "a second variant named stages-3"),
                 ("stages-3: STAGES=3\n", ["source", "v5_persistent", "nope"], "no variant named nope"),
                 ("stages-3: STAGES=3\n", ["list", "v9_gone"], "no v9_gone/kernel.cu"),
                 ("stages-3: STAGES=3\n", ["frobnicate"], "usage:")]
        for text, args, words in cases:
            self.write_variants("v5_persistent", text)
            done = subprocess.run([sys.executable, os.path.join(self.root, "scripts", "variants.py"), *args],
                                  capture_output=True, text=True)
            self.assertEqual(done.returncode, 2, args)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertIn(words, done.stderr)


class DiffScript(Scratch):
    def diff(self, *args, **kwargs):
        return subprocess.run([os.path.join(self.root, "scripts", "diff.sh"), *args],
                              capture_output=True, text=True, **kwargs)

    def make_version(self, name, change):
        """A copy of v0_naive named `name`, listed in versions.txt, whose kernel.cu has `change` applied."""
        shutil.copytree(os.path.join(self.root, "v0_naive"), os.path.join(self.root, name))
        add_version(self.root, name)
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
