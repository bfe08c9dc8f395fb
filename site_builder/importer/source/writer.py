"""The one writer of an import: a `SourceSite` (model.py) into NEW_SITE.

NEW_SITE/site.yml (from `SiteSettings`), content/posts/<dest> and content/pages/<dest> (front matter + body),
and each `SourceFile` copied to content/<dest> (images, which publish at their path below content/) or
static/<dest> (other files, served at the site root). NEW_SITE must be new or empty, and nothing is ever
overwritten: two records for one path keep the first, with a problem naming the second.

YAML is written with `yaml.safe_dump` (no tags); dates as ISO 8601 text. A feed reader (importer/write.py) can
move onto this writer by producing a SourceSite of its entries.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml

from site_builder.config.schema import FRONT_MATTER_KEYS, SITE_KEYS
from site_builder.errors import SiteError
from site_builder.importer.source.assets import missing_line
from site_builder.importer.source.model import ImportProblem, SiteSettings, SourceDoc, SourceSite
from site_builder.importer.source.report import SourceReport
from site_builder.importer.source.unread import unread_note

_SITE_KEYS = {k.name for k in SITE_KEYS}
# our keys, plus what h28b's build reads for any post: redirects from old URLs, a post left out of lists
_DOC_KEYS = {k.name for k in FRONT_MATTER_KEYS} | {"aliases", "hidden"}


def check_target(new: Path) -> None:
    """NEW_SITE must not exist, or be an empty folder."""
    if new.exists() and (not new.is_dir() or any(new.iterdir())):
        raise SiteError("the new site's folder is not empty: import into a new or empty folder", new)


def _plain(value: Any) -> Any:
    """Values YAML writes without tags: dates as ISO 8601 text, tuples as lists."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _dump(data: dict[str, Any]) -> str:
    return yaml.safe_dump(_plain(data), allow_unicode=True, sort_keys=False, width=10_000)


def site_yml(settings: SiteSettings) -> str:
    data: dict[str, Any] = {
        "title": settings.title,
        "subtitle": settings.subtitle,
        "url": settings.url,
        "author": settings.author,
        "language": settings.language,
    }
    if settings.languages:
        data["languages"] = {code: {} for code in dict.fromkeys([settings.language, *settings.languages])}
    data["permalink"] = settings.permalink
    data["nav"] = settings.nav
    data["math_macros"] = settings.math_macros
    data.update({k: v for k, v in settings.extra.items() if k in _SITE_KEYS})
    return _dump({k: v for k, v in data.items() if v not in ("", [], {}, None)})


def doc_text(doc: SourceDoc) -> str:
    meta = {k: v for k, v in doc.meta.items() if k in _DOC_KEYS and v not in (None, "", [])}
    if doc.notebook is not None:  # the front matter as the notebook's first raw cell (notebook.py reads it)
        front = {"cell_type": "raw", "metadata": {}, "source": f"---\n{_dump(meta)}---"}
        notebook = {**doc.notebook, "cells": [front, *doc.notebook.get("cells", [])]}
        return json.dumps(notebook, ensure_ascii=False, indent=1) + "\n"
    body = doc.body.strip("\n")
    return f"---\n{_dump(meta)}---\n\n{body}\n" if body else f"---\n{_dump(meta)}---\n"


def _write_new(path: Path, data: str | Path) -> bool:
    """Write `data` (text, or the file to copy) at `path`; False when `path` exists (it is never overwritten)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as out:
        if isinstance(data, Path):
            with data.open("rb") as src:
                shutil.copyfileobj(src, out)
        else:
            out.write(data.encode("utf-8"))
    return True


def _inside(base: Path, rel: str) -> Path | None:
    """`base/rel`, or None when `rel` would leave `base` (an absolute path, `..`)."""
    parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return base.joinpath(*parts)


def write_site(site: SourceSite, new: Path) -> SourceReport:
    """Write `site` into `new` (new or empty: `check_target`); the report of what was written."""
    check_target(new)
    new.mkdir(parents=True, exist_ok=True)
    report = SourceReport(site.generator, new, problems=list(site.problems), notes=list(site.notes))
    report.missing = missing_line(site.missing, site.root, new)
    _write_new(new / "site.yml", site_yml(site.settings))
    for doc in site.docs:
        folder = new / "content" / ("posts" if doc.kind == "post" else "pages")
        target = _inside(folder, doc.dest)
        if target is None or not _write_new(target, doc_text(doc)):
            report.problems.append(ImportProblem(doc.rel, None, f"not written: {doc.dest} is taken or not a path"))
            continue
        if doc.kind == "page":
            report.pages += 1
        elif doc.draft:
            report.drafts += 1
        else:
            report.posts += 1
    note = unread_note(doc.source_meta for doc in site.docs)
    if note:
        report.notes.append(note)
    for file in site.files:
        target = _inside(new / file.area, file.dest)
        if target is None:
            report.problems.append(ImportProblem(str(file.origin), None, f"not copied: {file.dest!r} is not a path"))
        elif _write_new(target, file.origin):
            if file.is_image:
                report.images += 1
            else:
                report.files += 1
    return report
