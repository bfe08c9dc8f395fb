"""Import each real blog source in ../shared/corpus/sources/ with `site-builder import OLD NEW`, build it, and
check it with ../shared/tools/source_check.py (and source_text.py where the original pages are there).

usage: python bench/import_sources.py [--stub-missing] [NAME ...]   (default: every source whose generator has a reader)
--stub-missing: first give each source a stand-in for every image its posts show that the snapshot lacks
(bench/stub_missing.py), to measure the import of a complete source.
Prints, per source: import and build times and exit codes, then the two tools' summary lines.
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((p / "shared" for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared").is_dir()), ROOT / "shared")
SOURCES = SHARED / "corpus" / "sources"
TOOLS = SHARED / "tools"
CLI = [sys.executable, "-m", "site_builder"]


def run(cmd, cwd=None):
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return proc, time.perf_counter() - start


def one(name: str, work: Path, stub: bool = False) -> None:
    src, new = SOURCES / name, work / name
    if stub:
        from stub_missing import stub_missing

        made = stub_missing(src, work / f"{name}-stubbed")
        src = work / f"{name}-stubbed"
        print(f"== {name}: {made} stand-ins for images the snapshot lacks")
    imp, t_imp = run([*CLI, "import", str(src), str(new)])
    print(f"== {name}: import exit {imp.returncode} in {t_imp:.1f}s: {imp.stdout.strip().splitlines()[-1:]}")
    if imp.returncode:
        print(imp.stderr[-2000:])
        return
    build, t_build = run([*CLI, "build"], cwd=new)
    print(f"   build exit {build.returncode} in {t_build:.1f}s: {build.stdout.strip().splitlines()[-1:]}")
    urls = src / "urls.tsv"
    check, _ = run([sys.executable, str(TOOLS / "source_check.py"), str(src), str(new / "output"), str(urls)])
    print("   " + check.stdout.strip().replace("\n", "\n   "))
    if (src / "built").is_dir() and urls.is_file():
        text, _ = run(
            [sys.executable, str(TOOLS / "source_text.py"), str(src / "built"), str(new / "output"), str(urls)]
        )
        print("   " + text.stdout.strip().replace("\n", "\n   "))


def main() -> None:
    stub = "--stub-missing" in sys.argv[1:]
    names = [a for a in sys.argv[1:] if a != "--stub-missing"] or sorted(
        p.name for p in SOURCES.iterdir() if p.is_dir()
    )
    with tempfile.TemporaryDirectory(prefix="import-sources-") as tmp:
        for name in names:
            one(name, Path(tmp), stub)


if __name__ == "__main__":
    main()
