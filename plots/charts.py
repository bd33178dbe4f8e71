"""What plots/plot.py and plots/timeline.py share: the pinned matplotlib, imported for file output
only, byte-stable PNG and SVG files, and the contract for bad input (one line on stderr, exit 2)."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REQUIREMENTS = os.path.join(ROOT, "plots", "requirements.txt")
VENV_PYTHON = ".venv/bin/python3"
PNG_DPI = 150


def pinned_matplotlib():
    """The matplotlib version plots/requirements.txt pins, or None when it cannot be read."""
    try:
        with open(REQUIREMENTS, encoding="utf-8") as f:
            for line in f:
                name, _, version = line.split("#")[0].strip().partition("==")
                if name.strip().lower() == "matplotlib" and version:
                    return version.strip()
    except OSError:
        pass
    return None


def import_pyplot(prog):
    """matplotlib.pyplot, drawing to files only; None, after one line on stderr naming the
    interpreter to use, when this one has no matplotlib."""
    try:
        import matplotlib
    except ImportError:
        venv = os.path.join(ROOT, VENV_PYTHON)
        if not os.path.relpath(venv).startswith(os.pardir):
            venv = os.path.relpath(venv)
        in_venv = os.path.realpath(sys.prefix) == os.path.realpath(os.path.join(ROOT, ".venv"))
        first = "" if os.path.isfile(venv) and not in_venv else "run `make setup`, then "
        print(f"{prog}: {sys.executable} has no matplotlib; {first}use {venv} "
              "(made by `make setup` with the matplotlib pinned in plots/requirements.txt)", file=sys.stderr)
        return None
    matplotlib.use("Agg")  # must precede pyplot: files only, no display
    import matplotlib.pyplot as plt
    return plt


def save_figure(fig, out_dir, stem):
    """Write STEM.png and STEM.svg without the metadata that would change between runs."""
    import matplotlib.pyplot as plt
    for ext, metadata in (("png", {"Software": None}), ("svg", {"Date": None})):
        path = os.path.join(out_dir, f"{stem}.{ext}")
        fig.savefig(path, dpi=PNG_DPI, metadata=metadata)
        print(path)
    plt.close(fig)


def draw(prog, path, out, load, render, input_error):
    """render(load(path)); 2 after one line on stderr for input that raises input_error or an
    output that cannot be written, else 0 (with a note when the matplotlib is not the pinned one)."""
    try:
        render(load(path))
    except input_error as err:
        print(f"{prog}: {path}: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"{prog}: {err.filename or out}: {err.strerror or err}", file=sys.stderr)
        return 2
    import matplotlib
    pinned = pinned_matplotlib()
    if pinned and matplotlib.__version__ != pinned:
        print(f"{prog}: drawn with matplotlib {matplotlib.__version__}, not the {pinned} of "
              f"plots/requirements.txt: the bytes may differ from the committed charts")
    return 0


def load_json(path, input_error):
    """The JSON document at path; input_error with one line when it cannot be read or parsed."""
    import json
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as err:
        raise input_error(f"cannot read: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise input_error(f"invalid JSON: {err.msg} at line {err.lineno} column {err.colno}") from None
    except ValueError as err:  # bytes that are not UTF-8
        raise input_error(f"invalid JSON: {err}") from None
