"""The images and files a converted doc uses, found in its Markdown and HTML and resolved in the source tree.

`collect(doc, resolve)` reads the doc's final body for `![..](src)`, `[..](href)`, `<img src>`, `<a href>`,
`<source src>` and `<video|audio src>`; each local reference that `resolve(ref, doc)` finds in the source tree
becomes a `SourceFile`:
- a site-root path (`/assets/img/x.png`): a Markdown image goes to content/<path> (images below content/ publish
  at that path, so the URL is kept: render.local_image), any other file (and an image only raw HTML shows, which
  the build does not publish) to static/<path> (copied to the output root); `merge` keeps one copy of each;
- a relative path (`img/x.png` next to the post): copied next to the written post, at the same relative path.
A reference that `resolve` cannot find is left as written (the build warns about a missing image). The reader
supplies `resolve`, since where a link points depends on the generator (baseurl, Hugo's static/, page bundles).
A reference in another case than the file (`Iteratee1.svg` for `iteratee1.svg`: it showed on a case-insensitive
disk only) is resolved when one file alone matches, and written with the file's own name, with a warning.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote, urlsplit

from site_builder.importer.source.model import (
    IMAGE_SUFFIXES,
    FileArea,
    ImportProblem,
    MissingFile,
    SourceDoc,
    SourceFile,
)

# a Markdown link or image target (with an optional title), or an HTML src/href attribute
_REFS = re.compile(
    r"""\]\(\s*<?(?P<md>[^)\s>]+)>?(?:\s+["'(][^)]*)?\)"""
    r"""|<(?:img|source|video|audio|a|embed|iframe)\b[^>]*?\s(?:src|href)\s*=\s*["'](?P<html>[^"']+)["']""",
    re.I,
)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_CODE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1[`~]*[ \t]*$|`[^`\n]+`", re.M | re.S)

Resolver = Callable[[str, SourceDoc], Path | None]


def file_inside(candidate: Path, root: Path, any_case: bool = True) -> Path | None:
    """`candidate` resolved (links followed), when it is a file inside the source tree `root`; None otherwise: a
    reader's resolver never hands the writer a file from elsewhere on the author's disk. With `any_case`, a
    candidate that is not there is the one file whose path differs from it in case alone, if there is one."""
    try:
        found = candidate.resolve()
    except OSError:
        return None
    if found.is_file() and found.is_relative_to(root.resolve()):
        return found
    return _in_any_case(candidate, root) if any_case else None


def _in_any_case(candidate: Path, root: Path) -> Path | None:
    """The file below `root` whose path is `candidate`'s but for the case of its names, when one alone is."""
    base = os.path.normpath(root.absolute())
    path = os.path.normpath(candidate.absolute())
    if not path.startswith(base + os.sep):
        return None
    here = base
    for name in path[len(base) + 1 :].split(os.sep):
        try:
            names = os.listdir(here)
        except OSError:
            return None
        same = [name] if name in names else [n for n in names if n.casefold() == name.casefold()]
        if len(same) != 1:
            return None
        here = os.path.join(here, same[0])
    return file_inside(Path(here), root, any_case=False)


def real_case(ref: str, origin: Path) -> str:
    """`ref` with its last names spelt as the file and folders on disk are (`/img/Iteratee1.svg` ->
    `/img/iteratee1.svg` for `.../img/iteratee1.svg`), where they differ in case alone; else `ref` itself."""
    split = urlsplit(ref)
    parts = split.path.split("/")
    disk = list(origin.parts)
    changed = False
    for i in range(len(parts) - 1, -1, -1):
        name = unquote(parts[i])
        if not disk or name in ("", ".", ".."):
            break
        real = disk.pop()
        if name != real and name.casefold() != real.casefold():
            break
        if name != real:
            parts[i], changed = (quote(real) if "%" in parts[i] else real), True
    return split._replace(path="/".join(parts)).geturl() if changed else ref


def _renamed(body: str, ref: str, new: str) -> str:
    """`body` with each link and image to `ref` (outside code) pointing at `new`."""

    def one(m: re.Match[str]) -> str:
        return m[0].replace(ref, new) if (m.group("md") or m.group("html")) == ref else m[0]

    out, pos = [], 0
    for code in _CODE.finditer(body):
        out += [_REFS.sub(one, body[pos : code.start()]), code[0]]
        pos = code.end()
    return "".join([*out, _REFS.sub(one, body[pos:])])


def references(body: str) -> dict[str, bool]:
    """Local references in a body (code blocks and spans left out), in order, once each: True for a Markdown
    image (the build publishes it from content/), False for a link or raw HTML (copied as it is: static/)."""
    text = _CODE.sub("", body)
    found: dict[str, bool] = {}
    for m in _REFS.finditer(text):
        ref = m.group("md") or m.group("html") or ""
        parts = urlsplit(ref)
        if parts.scheme or parts.netloc or not parts.path or ref.startswith(("#", "data:")) or "{" in ref:
            continue
        found[ref] = found.get(ref, False) or (m.group("md") is not None and _is_image_link(text, m.start()))
    return found


def _is_image_link(text: str, bracket: int) -> bool:
    """Whether the `](` at `bracket` closes an image's `![alt`."""
    depth = 0
    for i in range(bracket - 1, max(-1, bracket - 2000), -1):
        c = text[i]
        if c == "]":
            depth += 1
        elif c == "[":
            if depth == 0:
                return i > 0 and text[i - 1] == "!"
            depth -= 1
    return False


def is_page_link(ref: str) -> bool:
    """A link to a page (no file suffix, `.html`), not a file to copy."""
    suffix = PurePosixPath(unquote(urlsplit(ref).path)).suffix.lower()
    return suffix in ("", ".html", ".htm", ".md", ".markdown", ".php")


def collect(
    doc: SourceDoc,
    resolve: Resolver,
    missing: list[MissingFile] | None = None,
    problems: list[ImportProblem] | None = None,
) -> list[SourceFile]:
    """The files `doc` uses that `resolve` finds, each with where it goes in NEW_SITE (see the module doc); the
    files it uses (outside HTML comments) that the source tree does not have are added to `missing`; a reference
    found in another case is written with the file's name, and a problem naming both is added to `problems`; one
    `resolve` finds under another name (al-folio's `x-480.webp`, made from `x.jpg` when the site was built) is
    written with that file's name. A post that shows images the source lacks is named in one problem (each reader's
    posts alike)."""
    out: list[SourceFile] = []
    lacking: list[str] = []  # the images this doc shows that the source lacks
    shown = references(_COMMENT.sub("", doc.body)) if "<!--" in doc.body else None
    for ref, image in references(doc.body).items():
        if is_page_link(ref):
            continue
        origin = resolve(ref, doc)
        if origin is None or not origin.is_file():
            if missing is not None and (shown is None or ref in shown):
                is_image = _suffix(ref) in IMAGE_SUFFIXES
                area, dest = _destination(doc, unquote(urlsplit(ref).path), image and is_image)
                missing.append(MissingFile(ref, f"{area}/{dest}", is_image))
                lacking += [ref] if is_image else []
            continue
        if (original := other_name(ref, origin)) != ref:
            doc.body = _renamed(doc.body, ref, original)
            ref = original
        if (real := real_case(ref, origin)) != ref:
            line = doc.line_offset + doc.body[: max(0, doc.body.find(ref))].count("\n")
            doc.body = _renamed(doc.body, ref, real)
            message = (
                f"{ref} is {real} on disk (a name in another case: it showed on a case-insensitive disk only):"
                f" linked as {real}; write {real} in the source to fix it there"
            )
            if problems is not None:
                problems.append(ImportProblem(doc.rel, line, message))
            ref = real
        area, dest = _destination(doc, unquote(urlsplit(ref).path), image and origin.suffix.lower() in IMAGE_SUFFIXES)
        out.append(SourceFile(origin, area, dest))
    if lacking and problems is not None:
        message = f"{len(lacking)} image(s) the post shows are not in the source folder, e.g. {lacking[0]}"
        problems.append(ImportProblem(doc.rel, None, message))
    return out


def _destination(doc: SourceDoc, path: str, image: bool) -> tuple[FileArea, str]:
    """Where a file `doc` names at `path` goes in NEW_SITE (module doc): a site path to content/ (a Markdown
    image) or static/, a relative one next to the written doc."""
    if path.startswith("/"):
        return ("content" if image else "static"), path.lstrip("/")
    dest = PurePosixPath(PurePosixPath(doc.dest).parent, path).as_posix()
    return "content", f"{'posts' if doc.kind == 'post' else 'pages'}/{dest}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _suffix(ref: str) -> str:
    return PurePosixPath(unquote(urlsplit(ref).path)).suffix.lower()


def other_name(ref: str, origin: Path) -> str:
    """`ref` with its last name replaced by `origin`'s when they differ more than in case (a resolver found another
    file for it: al-folio's `x-480.webp` is `x.jpg`); else `ref` itself."""
    split = urlsplit(ref)
    folder, _, name = split.path.rpartition("/")
    if unquote(name).casefold() == origin.name.casefold():
        return ref
    new = quote(origin.name) if "%" in name or " " in origin.name else origin.name
    return split._replace(path=f"{folder}/{new}" if folder or split.path.startswith("/") else new).geturl()


def missing_line(missing: list[MissingFile], old: Path, new: Path, at_most: int = 12) -> str:
    """The report's one line on the images (and other files) the docs use that OLD_SITE lacks: how many, and where
    in NEW_SITE they go (one file by its path, else a folder by its count; folders joined into their parents while
    there are more than `at_most`), so the user knows what to copy from the old site; "" for none."""
    dests = sorted({m.dest for m in missing})
    if not dests:
        return ""
    images = len({m.dest for m in missing if m.image})
    others = f" and {_count(len(dests) - images, 'other file')}" if len(dests) > images else ""
    groups: dict[str, list[str]] = {}
    for dest in dests:
        groups.setdefault(dest.rpartition("/")[0], []).append(dest)
    while len(groups) > at_most:
        deepest = max(folder.count("/") for folder in groups)
        if deepest < 2:
            break
        joined: dict[str, list[str]] = {}
        for folder, found in groups.items():
            joined.setdefault(folder.rpartition("/")[0] if folder.count("/") == deepest else folder, []).extend(found)
        groups = joined
    where = [found[0] if len(found) == 1 else f"{folder}/ ({len(found)})" for folder, found in sorted(groups.items())]
    verb = "use" if others else "show"
    return (
        f"{_count(images, 'image')}{others} the posts {verb} are not in {old}: copy them from the old site (the path"
        f" after content/ or static/ is their URL there) into {new}: {', '.join(where)}"
    )


def merge(files: list[SourceFile]) -> list[SourceFile]:
    """One copy of each file: a site path both in content/ and in static/ stays in content/ alone (the build
    publishes it at that path, and static/ would collide with it)."""
    in_content = {f.dest for f in files if f.area == "content"}
    seen: set[tuple[str, str]] = set()
    out = []
    for f in files:
        key = (f.area, f.dest)
        if key in seen or (f.area == "static" and f.dest in in_content):
            continue
        seen.add(key)
        out.append(f)
    return out
