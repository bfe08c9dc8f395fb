"""How much of the math real blogs write renders to MathML: every formula of the shared feed corpus (imported as
`site-builder import` would) and of the bundled site, rendered as a build renders it.

Usage: python bench/math_coverage.py [FEED_DIR] [--markdown DIR ...]
(default ../shared/corpus/feeds and the seed feed). `--markdown DIR` adds the Markdown posts of another blog's
source (a Jekyll `_posts/` folder: kramdown's `$$..$$`, or `$..$`), front matter left out, read as this builder
reads a post: every formula it finds is counted. A `site.yml` in DIR gives its `math_macros` (the blog's MathJax
`Macros`, written as this builder reads them).
Prints, per source, formulas and failures, then the rate over all of them and the failures grouped by reason.
"""

from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from site_builder.config import load_config
from site_builder.importer.convert import html_to_markdown
from site_builder.importer.feed import read_feed
from site_builder.load import load_posts
from site_builder.mathtex import render_math
from site_builder.parse import parse


def formulas_of(body: str, macros: dict[str, str] | None = None) -> tuple[int, list[str]]:
    """(formulas rendered, the reasons of those that failed) for one post body (`macros`: site.yml's math_macros)."""
    tokens, env = parse(body, {"math_macros": tuple(sorted((macros or {}).items()))})
    render_math(tokens, env)
    reasons = [w.message for w in env.get("warnings", []) if w.message.startswith("cannot render math")]
    return int(env.get("math_count", 0)), reasons


def feed_bodies(path: Path) -> list[str]:
    try:
        feed = read_feed(path)
    except Exception as exc:  # a malformed feed: nothing to count
        print(f"  {path.name}: not read ({type(exc).__name__})")
        return []
    return [html_to_markdown(e.html, e.base, lambda _m: None) for e in feed.entries]


def markdown_bodies(folder: Path) -> list[str]:
    """The bodies of the Markdown files in `folder` (YAML front matter between `---` lines left out)."""
    bodies = []
    for path in sorted([*folder.rglob("*.md"), *folder.rglob("*.markdown")]):
        text = path.read_text(encoding="utf-8", errors="replace")
        if text.startswith("---"):
            end = text.find("\n---", 3)
            text = text[end + 4 :] if end != -1 else text
        bodies.append(text)
    return bodies


def reason_group(message: str) -> str:
    reason = message.rsplit(": ", 1)[-1]
    reason = re.sub(r'"[^"]*"', '"…"', reason)
    return re.sub(r"\d+", "N", reason)


def main() -> None:
    args = sys.argv[1:]
    markdown_dirs = []
    while "--markdown" in args:
        i = args.index("--markdown")
        markdown_dirs.append(Path(args[i + 1]))
        del args[i : i + 2]
    feeds_dir = Path(args[0]) if args else ROOT.parent / "shared" / "corpus" / "feeds"
    sources: dict[str, list[str]] = {}
    macros: dict[str, dict[str, str]] = {}
    for feed in [*sorted(feeds_dir.rglob("*.xml")), ROOT.parent / "shared" / "seed" / "strawberry-fields.atom.xml"]:
        if feed.exists():
            sources[feed.name] = feed_bodies(feed)
    sources["content/ (bundled site)"] = [p.body for p in load_posts(load_config(ROOT))]
    for folder in markdown_dirs:
        sources[f"{folder} (Markdown)"] = markdown_bodies(folder)
        macros[f"{folder} (Markdown)"] = load_config(folder).math_macros
    ok_total = 0
    failed: list[str] = []
    by_source: dict[str, tuple[int, int]] = defaultdict(lambda: (0, 0))
    for name, bodies in sources.items():
        for body in bodies:
            ok, bad = formulas_of(body, macros.get(name))
            ok_total += ok
            failed += bad
            done, fails = by_source[name]
            by_source[name] = (done + ok + len(bad), fails + len(bad))
    for name, (count, fails) in by_source.items():
        if count:
            print(f"  {name}: {count} formulas, {fails} not rendered")
    total = ok_total + len(failed)
    rate = 100 * ok_total / total if total else 100.0
    print(f"{total} formulas, {ok_total} rendered to MathML: {rate:.2f}%")
    for reason, n in Counter(reason_group(m) for m in failed).most_common():
        print(f"  {n:4d}  {reason}")
    for message in failed[:20]:
        print(f"        {message[:160]}")


if __name__ == "__main__":
    main()
