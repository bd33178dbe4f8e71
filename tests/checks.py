"""The tally the standalone chart tests share: every check runs, every failure is printed, and
the summary line and exit status come at the end."""


class Checks:
    """Collects failures so one run reports all of them."""

    def __init__(self):
        self.passed = 0
        self.failed = []

    def expect(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed.append(what)
            print(f"FAIL: {what}")

    def summary(self, name):
        """Prints NAME: the tally; the exit status of the test: 0 when nothing failed."""
        print(f"{name}: {self.passed} checks passed, {len(self.failed)} failed")
        return 1 if self.failed else 0


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
EXTS = ("png", "svg")


def check_outputs(out_dir, stems, checks):
    """Every STEM.png and STEM.svg exists, is non-empty, and the PNGs are PNGs."""
    import os
    for stem in stems:
        for ext in EXTS:
            path = os.path.join(out_dir, f"{stem}.{ext}")
            size = os.path.getsize(path) if os.path.isfile(path) else 0
            checks.expect(size > 0, f"{stem}.{ext} exists and is non-empty")
            if ext == "png" and size:
                with open(path, "rb") as f:
                    checks.expect(f.read(len(PNG_SIGNATURE)) == PNG_SIGNATURE,
                                  f"{stem}.png starts with the PNG signature")


def check_reproducible(first, second, stems, checks):
    """Two renderings of the same input are byte-identical, file by file."""
    import filecmp
    import os
    for stem in stems:
        for ext in EXTS:
            a, b = os.path.join(first, f"{stem}.{ext}"), os.path.join(second, f"{stem}.{ext}")
            same = os.path.isfile(a) and os.path.isfile(b) and filecmp.cmp(a, b, shallow=False)
            checks.expect(same, f"{stem}.{ext} is byte-identical when rendered twice")
