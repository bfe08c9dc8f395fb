"""A Pelican article with `{% notebook %}` tags as a notebook post (why: pelican.py's docstring).

The notebook is read with nbformat (any version, upgraded to 4) from NOTEBOOK_DIR, else from the content folder
(liquid_tags' `notebook` looks in NOTEBOOK_DIR; sites also write the path from PATH). Its cells `i:j` (the tag's
`cells[i:j]`) are taken as they are, outputs included; the article's own text before, between and after the tags
becomes Markdown cells. A notebook that is not in the source is an HTML comment with a warning, and an article
none of whose notebooks is found stays a Markdown post.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat

from site_builder.importer.source.model import ImportProblem, SourceDoc
from site_builder.importer.source.pelican_tags import NOTEBOOK_MARK


def _read(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as f:
            return nbformat.read(f, as_version=4)  # type: ignore[no-untyped-call]
    except (OSError, UnicodeDecodeError, ValueError, nbformat.reader.NotJSONError) as exc:
        return str(exc)


def _slice(cells: list[Any], start: str, end: str) -> list[Any]:
    return cells[int(start) if start else None : int(end) if end else None]


def _markdown(text: str, n: int) -> dict[str, Any]:
    return {"cell_type": "markdown", "id": f"imported-{n}", "metadata": {}, "source": text}


def notebook_doc(doc: SourceDoc, notebook_dir: Path, content: Path) -> list[ImportProblem]:
    """Make `doc` (its body holding pelican_tags' notebook marks) a notebook post; the problems found."""
    pieces = NOTEBOOK_MARK.split(doc.body)
    cells: list[Any] = []
    texts: list[str] = []
    problems: list[ImportProblem] = []
    first: Any = None
    for k in range(0, len(pieces), 5):
        text = pieces[k].strip("\n")
        if text.strip():
            cells.append(_markdown(text, len(cells)))
            texts.append(text)
        if k + 4 >= len(pieces):
            break
        name, start, end, line = pieces[k + 1 : k + 5]
        path = next((p for p in (notebook_dir / name, content / name) if p.is_file()), None)
        nb = _read(path) if path is not None else "it is not in the source"
        if isinstance(nb, str):
            problems.append(ImportProblem(doc.rel, int(line), f"not converted: the notebook {name}: {nb}"))
            comment = f"<!-- not converted: {{% notebook {name} %}} (not in the source) -->"
            cells.append(_markdown(comment, len(cells)))
            texts.append(comment)
            continue
        first = first or nb
        cells += [dict(c) for c in _slice(list(nb.cells), start, end)]
    doc.body = "\n\n".join(texts)
    if first is None:
        return problems
    for n, cell in enumerate(cells):
        cell.setdefault("id", f"cell-{n}")
    doc.notebook = {"cells": cells, "metadata": dict(first.metadata), "nbformat": 4, "nbformat_minor": 5}
    doc.dest = doc.dest.rsplit(".", 1)[0] + ".ipynb"
    return problems
