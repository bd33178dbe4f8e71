#!/usr/bin/env python3
"""The named variants of a version: its kernel.cu (or another form of it, such as pingpong.cu) with a
few edits, one change at a time, as its page measures them.

  variants.py list VERSION          one line per variant: its name and its edits
  variants.py source VERSION NAME   the variant's source on stdout

A version's variants live in <version>/variants.txt, one a line (`#` starts a comment line):

  NAME: EDIT; EDIT; ...

where NAME is letters, digits, `-` and `_`, and each EDIT is either
  CONSTANT=VALUE    the line `constexpr int CONSTANT = <integer>;` gets VALUE
  drop TEXT         every line holding TEXT goes (e.g. `drop hopper::claim_registers<`)
  from FILE         first, if at all: the edits apply to the version's FILE (a form beside
                    kernel.cu, e.g. `from pingpong.cu`) instead of kernel.cu
An edit that finds nothing is an error: a variant must not silently become its version.
make docs writes each variant's diff against its source to docs/variants/<version>/<NAME>.diff;
scripts/sweep.sh VERSION builds and measures them all. Bad input: one line on stderr, exit 2.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINE = re.compile(r"([\w-]+):\s*(.+)")
SET = re.compile(r"(\w+)=(-?\d+)")


class Problem(Exception):
    """A variants.txt that cannot be read or applied; the message names the file and the line."""


def load(root, version):
    """[(name, [edit, ...])] of <version>/variants.txt, in file order; [] when there is none."""
    path = os.path.join(root, version, "variants.txt")
    if not os.path.isfile(path):
        return []
    variants, names = [], set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            where = f"{version}/variants.txt:{number}"
            m = LINE.fullmatch(line)
            if not m:
                raise Problem(f"{where}: '{line}' is not `NAME: EDIT; EDIT; ...`")
            name, edits = m.group(1), [e.strip() for e in m.group(2).split(";") if e.strip()]
            if name in names:
                raise Problem(f"{where}: a second variant named {name}")
            for i, edit in enumerate(edits):
                if edit.startswith("from "):
                    if i != 0:
                        raise Problem(f"{where}: `{edit}` must be the first edit")
                    if not os.path.isfile(os.path.join(root, version, edit[5:].strip())):
                        raise Problem(f"{where}: `{edit}`: no {version}/{edit[5:].strip()}")
                elif not (SET.fullmatch(edit) or (edit.startswith("drop ") and edit[5:].strip())):
                    raise Problem(f"{where}: edit '{edit}' is neither CONSTANT=VALUE, `drop TEXT` nor `from FILE`")
            names.add(name)
            variants.append((name, edits))
    return variants


def apply(text, edits, where):
    """`text` with `edits` applied, each of which must change something."""
    lines = text.splitlines(keepends=True)
    for edit in edits:
        m = SET.fullmatch(edit)
        if m:
            pattern = re.compile(r"(constexpr int " + m.group(1) + r" = )-?\d+;")
            hits = [i for i, l in enumerate(lines) if pattern.match(l)]
            for i in hits:
                lines[i] = pattern.sub(lambda found: found.group(1) + m.group(2) + ";", lines[i], count=1)
            what = f"no `constexpr int {m.group(1)} = <integer>;` line"
        else:
            needle = edit[5:].strip()
            hits = [i for i, l in enumerate(lines) if needle in l]
            lines = [l for l in lines if needle not in l]
            what = f"no line holds '{needle}'"
        if not hits:
            raise Problem(f"{where}: {edit}: {what}")
    return "".join(lines)


def base(edits):
    """The file of the version that a variant with `edits` edits: kernel.cu unless `from FILE`."""
    return edits[0][5:].strip() if edits and edits[0].startswith("from ") else "kernel.cu"


def source(root, version, name):
    """The source of variant `name` of `version`: its base file with its edits."""
    for variant, edits in load(root, version):
        if variant == name:
            with open(os.path.join(root, version, base(edits)), encoding="utf-8") as f:
                edits = [e for e in edits if not e.startswith("from ")]
                return apply(f.read(), edits, f"{version}/variants.txt: {name}")
    known = ", ".join(v for v, _ in load(root, version)) or "none"
    raise Problem(f"{version} has no variant named {name} (its variants: {known})")


def main(argv):
    usage = "usage: variants.py list VERSION | variants.py source VERSION NAME"
    if len(argv) < 2 or argv[0] not in ("list", "source") or len(argv) != (2 if argv[0] == "list" else 3):
        print(usage, file=sys.stderr)
        return 2
    version = argv[1]
    try:
        if not os.path.isfile(os.path.join(ROOT, version, "kernel.cu")):
            raise Problem(f"no {version}/kernel.cu")
        if argv[0] == "list":
            for name, edits in load(ROOT, version):
                print(f"{name}: {'; '.join(edits)}")
        else:
            sys.stdout.write(source(ROOT, version, argv[2]))
    except Problem as err:
        print(f"variants: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
