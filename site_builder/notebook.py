"""Jupyter notebooks as posts (stage 1, beside `load`): a `.ipynb` file read with nbformat becomes the Markdown body
a post would have, and a map from each line of that body back to its cell.

Front matter is the YAML between `---` lines of the notebook's first cell when that is a raw cell (as Quarto reads
it), else the mapping `metadata.site_builder`. Markdown cells are the body as they are (an `attachment:NAME` image
becomes a data: URL); code cells become ```python fences, so an `execute: true` notebook runs as a Markdown post
does; without `execute: true`, the outputs stored in the notebook are published under their cells, as raw HTML
cleaned as executed values are (`outputs.py`). Other raw cells are not published.

A notebook post's line numbers (`Post.lines`, `Post.body_line`, a run's failures) are lines of a virtual file: the
front matter cell's lines, then the body. `CellMap.where` turns one into `cell 4:line 2`; `cell_location` does it by
post path for `execute/report.py`. A map registers itself by its post's path when made or unpickled (posts come back
from forked workers and from the last build's state), so the failure lines of a run find it.
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass, field, replace
from html import escape
from typing import Any
from urllib.parse import unquote

from site_builder.config.frontmatter import FrontMatter, read_front_matter
from site_builder.config.schema import FRONT_MATTER_KEYS, unknown_keys
from site_builder.config.status import executes
from site_builder.config.yamlfile import utf8_text
from site_builder.errors import SiteError, SiteWarning
from site_builder.fences import info_string, shows_code, shows_outputs

SUFFIX = ".ipynb"  # load.NOTEBOOK
METADATA_KEY = "site_builder"  # notebook metadata key holding the front matter when no raw cell does


@dataclass
class CellMap:
    """Where each line of a notebook post comes from: its front matter cell (or metadata), and each body line's
    cell and line in that cell (both 1-based, as Jupyter numbers them)."""

    rel: str
    front: str  # where the front matter is: "cell 1" or "metadata.site_builder"
    body_line: int  # the virtual line of the body's first line; the lines before it are the front matter cell's
    lines: list[tuple[int, int]] = field(default_factory=list)  # each body line's (cell number, line in cell)
    body: str = ""  # the body (the post's own string): the code a traceback shows

    def where(self, line: int | None) -> str:
        """`cell 4:line 2` for a virtual line; the front matter's place for a line before the body (or none)."""
        if line is None or line < self.body_line or not self.lines:
            in_cell = line is not None and 0 < line < self.body_line and self.front.startswith("cell ")
            return f"{self.front}:line {line}" if in_cell else self.front
        cell, n = self.lines[min(line - self.body_line, len(self.lines) - 1)]
        return f"cell {cell}:line {n}"

    def at(self, line: int | None) -> str:
        """The post's path and the place of `line`: `content/posts/nb.ipynb:cell 4:line 2`."""
        return f"{self.rel}:{self.where(line)}"

    def error(self, exc: SiteError) -> SiteError:
        """An error about this post at a virtual line, at its cell instead."""
        return SiteError(exc.message, self.at(exc.line)) if exc.file == self.rel else exc

    def warning(self, warning: SiteWarning) -> SiteWarning:
        return replace(warning, file=self.at(warning.line), line=None) if warning.file == self.rel else warning


def cell_location(cells: CellMap | None, line: int | None) -> str | None:
    """`rel:cell 4:line 2` for a notebook post's map, else None."""
    return None if cells is None else cells.at(line)


_CARETS = re.compile(r"\s*[\^~]+\s*")


def cell_traceback(cells: CellMap | None, detail: str) -> str:
    """A failure's traceback with a notebook post's frames at their cells (`File "nb.ipynb", cell 4, line 2`), each
    with its code line (the runner's shows the line of the notebook's JSON); other posts' as they are."""
    if cells is None:
        return detail
    frame = re.compile(rf'^(\s*)(File "{re.escape(cells.rel)}", )line (\d+)(.*)$')
    body = cells.body.split("\n")
    out: list[str] = []
    indent, code, shown = -1, "", False  # the last frame's indent (-1: none), its code line, whether it is shown
    for line in detail.split("\n"):
        depth = len(line) - len(line.lstrip())
        if indent >= 0 and depth > indent and line.strip():
            if not shown and not _CARETS.fullmatch(line):
                out.append(line[:depth] + code)  # in place of the runner's line of the JSON
                shown = True
            continue  # carets under that line point at nothing
        if indent >= 0 and not shown and code:
            out.append(" " * (indent + 4) + code)
        indent = -1
        m = frame.match(line)
        if m is None:
            out.append(line)
            continue
        n = int(m.group(3))
        out.append(f"{m.group(1)}{m.group(2)}{cells.where(n).replace(':', ', ')}{m.group(4)}")
        index = n - cells.body_line
        indent, code, shown = len(m.group(1)), body[index].strip() if 0 <= index < len(body) else "", False
    if indent >= 0 and not shown and code:
        out.append(" " * (indent + 4) + code)
    return "\n".join(out)


def read_notebook(data: bytes, rel: str) -> tuple[FrontMatter, CellMap]:
    """A notebook file's front matter, with its body the Markdown its cells make, and the map of that body."""
    nb = _parse(data, rel)
    cells = list(nb.get("cells") or [])
    front, cell_map, first = _front_matter(nb, cells, rel)
    execute = executes(front.meta.get("execute"))
    lang = _language(nb.get("metadata") or {})
    body: list[str] = []
    for number, cell in enumerate(cells[first:], first + 1):
        lines = _cell_lines(cell, number, lang, execute, cell_map, front.warnings)
        if not lines:
            continue
        if body:  # a blank line between cells, counted as the end of the cell before
            body.append("")
            cell_map.lines.append(cell_map.lines[-1])
        body += [text for text, _ in lines]
        cell_map.lines += [(number, n) for _, n in lines]
    front.body, front.body_line = "\n".join(body) + "\n", cell_map.body_line
    cell_map.body = front.body
    return front, cell_map


def _parse(data: bytes, rel: str) -> Any:
    """The notebook (untrusted JSON) as nbformat's version 4; anything wrong with it is one error at the file."""
    import nbformat  # only for sites with notebooks: it takes half a second to import

    text = utf8_text(data, rel).removeprefix("\ufeff")
    try:
        top = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SiteError(f"not a notebook: not JSON ({exc.msg}, column {exc.colno})", rel, exc.lineno) from None
    except RecursionError:
        raise SiteError("not a notebook: JSON nested too deep", rel) from None
    if not isinstance(top, dict) or ("cells" not in top and "worksheets" not in top):
        raise SiteError("not a notebook: JSON, but not an object with cells (nbformat, metadata, cells)", rel, 1)
    problem: dict[str, Any] = {}
    try:
        with warnings.catch_warnings():  # a cell without an id, and the like: nbformat's warnings, not the site's
            warnings.simplefilter("ignore")
            nb = nbformat.reads(text, as_version=4, capture_validation_error=problem)  # type: ignore[no-untyped-call]
    except Exception as exc:  # bad JSON, an unknown version, a nesting too deep for the parser
        raise SiteError(f"not a notebook nbformat can read: {_first_line(exc)}", rel) from None
    if "ValidationError" in problem:
        raise SiteError(f"not a valid notebook: {_first_line(problem['ValidationError'])}", rel)
    return nb


def _first_line(exc: object) -> str:
    text = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
    return text if len(text) <= 200 else text[:199] + "…"


def _front_matter(nb: Any, cells: list[Any], rel: str) -> tuple[FrontMatter, CellMap, int]:
    """(front matter, the map to fill, index of the first body cell): a first raw cell starting with `---` wins
    over `metadata.site_builder`."""
    metadata = nb.get("metadata") or {}
    source = _source(cells[0]) if cells and cells[0].get("cell_type") == "raw" else ""
    if source.split("\n", 1)[0].rstrip() == "---":
        cell_map = CellMap(rel, "cell 1", source.count("\n") + 2)
        try:
            front = read_front_matter(source, rel)
        except SiteError as exc:
            raise cell_map.error(exc) from None
        front.warnings = [cell_map.warning(w) for w in front.warnings]
        if METADATA_KEY in metadata:
            message = f"metadata.{METADATA_KEY} holds front matter too"
            front.warnings.append(SiteWarning(message, cell_map.at(None), None, "ignored"))
        return front, cell_map, 1
    cell_map = CellMap(rel, f"metadata.{METADATA_KEY}", 2)  # virtual line 1: the metadata
    meta = metadata.get(METADATA_KEY)
    if meta is None:
        message = (
            "no front matter: start the notebook with a raw cell of YAML between '---' lines, or give it "
            f"metadata.{METADATA_KEY} (title, date, ...)"
        )
        raise SiteError(message, rel)
    if not isinstance(meta, dict):
        raise SiteError("front matter must be a mapping of keys to values", cell_map.at(None))
    meta = json.loads(json.dumps(meta))  # plain dicts and lists, not nbformat's nodes
    return FrontMatter(meta, "", 2, {}, unknown_keys(meta, FRONT_MATTER_KEYS, cell_map.at(None), {})), cell_map, 0


def _source(cell: Any) -> str:
    source = cell.get("source")
    source = "".join(source) if isinstance(source, list) else source if isinstance(source, str) else ""
    return source.replace("\r\n", "\n").replace("\r", "\n")


def _language(metadata: Any) -> str:
    """The fence language of the code cells: the kernel's language, python when the notebook does not say."""
    info = metadata.get("language_info") or {}
    name = info.get("name") if isinstance(info, dict) else None
    if not isinstance(name, str):
        spec = metadata.get("kernelspec") or {}
        name = spec.get("language") if isinstance(spec, dict) else None
    name = name.strip().lower() if isinstance(name, str) else ""
    return name if re.fullmatch(r"[\w+#.-]{1,40}", name) else "python"


def _cell_lines(
    cell: Any, number: int, lang: str, execute: bool, cell_map: CellMap, warns: list[SiteWarning]
) -> list[tuple[str, int]]:
    """A cell's lines of Markdown, each with its line in the cell: a markdown cell's source, a code cell's fence
    (and, when the notebook does not execute, its stored outputs as raw HTML). Raw cells give none."""
    kind, source = cell.get("cell_type"), _source(cell)
    if kind == "markdown":
        if not source.strip():
            return []
        source = _attachments(source, cell.get("attachments"), f"{cell_map.rel}:cell {number}", warns)
        return [(text, n) for n, text in enumerate(source.split("\n"), 1)]
    if kind != "code":
        return []
    code = source.rstrip()
    options = _tag_options(cell)
    outputs = [] if execute or not shows_outputs(options) else _outputs(cell)
    if not code and not outputs:
        return []
    fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", code)), default=0) + 1)
    last = code.count("\n") + 1
    quarto = code.startswith("#|") and lang == "python"  # Quarto's `#| echo: false` lines: quarto_cells reads them
    info = info_string("{python}" if quarto else lang, options)
    lines = [(f"{fence}{info}", 1), *((text, n) for n, text in enumerate(code.split("\n"), 1)), (fence, last)]
    if not execute and not shows_code(options):  # nothing runs: the code the author hid is not shown
        lines = []
    return lines + [(line, last) for html in outputs for line in html.split("\n")]


CELL_TAGS = {  # Jupyter Book's and MyST-NB's cell tags -> fence options
    "skip-execution": ("skip", ""),
    "remove-cell": ("hide", ""),
    "remove-input": ("hide", "code"),
    "hide-input": ("hide", "code"),
    "remove-output": ("hide", "output"),
    "hide-output": ("hide", "output"),
    "raises-exception": ("raises", "Exception"),
}


def _tag_options(cell: Any) -> dict[str, str]:
    """A code cell's fence options from its metadata's tags (`remove-input`: its outputs shown, not its code)."""
    tags = (cell.get("metadata") or {}).get("tags") or []
    return dict(CELL_TAGS[tag] for tag in tags if isinstance(tag, str) and tag in CELL_TAGS)


_ATTACHMENT = re.compile(r"(?<=[(<\"'])attachment:([^\s)<>\"']+)")
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")  # what markdown-it takes as a data: URL
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def _attachments(source: str, attachments: Any, where: str, warns: list[SiteWarning]) -> str:
    """A markdown cell's `attachment:NAME` links as data: URLs of the cell's attached images."""
    attachments = attachments if isinstance(attachments, dict) else {}

    def data_url(m: re.Match[str]) -> str:
        name = unquote(m.group(1))
        bundle = attachments.get(name)
        for mime in _IMAGE_TYPES if isinstance(bundle, dict) else ():
            data = bundle.get(mime)
            data = "".join(data.split()) if isinstance(data, str) else ""
            if data and _BASE64.fullmatch(data):
                return f"data:{mime};base64,{data}"
        why = "is not attached to this cell" if bundle is None else "is not a PNG, JPEG, GIF or WebP image"
        line = source.count("\n", 0, m.start()) + 1
        warns.append(SiteWarning(f"attachment {name!r} {why}", f"{where}:line {line}", None, "not shown"))
        return m.group(0)

    return _ATTACHMENT.sub(data_url, source)


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_LABEL = '<span class="value-label">Out:</span>'  # outputs.py's, kept for a cell's result only


def _outputs(cell: Any) -> list[str]:
    """A code cell's stored outputs as the HTML an executed block's would be, each on one line: printed text,
    results and displays (HTML cleaned by nh3, SVG as figures are, PNG checked to be one), errors."""
    from site_builder.outputs import value_html  # nh3: only for notebooks with outputs

    shown = []
    for output in cell.get("outputs") or []:
        kind = output.get("output_type")
        html = ""
        if kind == "stream":
            text = _ANSI.sub("", _text(output.get("text")))
            css = "output stderr" if output.get("name") == "stderr" else "output"
            html = f'<div class="{css}"><pre><code>{escape(text)}</code></pre></div>' if text.strip() else ""
        elif kind in ("execute_result", "display_data"):
            data = output.get("data")
            html = value_html({k: _text(v) for k, v in data.items()} if isinstance(data, dict) else None)
            html = html if kind == "execute_result" else html.replace(_LABEL, "", 1)
        elif kind == "error":
            text = _ANSI.sub("", f"{_text(output.get('ename'))}: {_text(output.get('evalue'))}")
            html = f'<div class="output raised"><pre><code>{escape(text)}</code></pre></div>'
        if html:
            shown.append(_one_block(html))
    return shown


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else value if isinstance(value, str) else ""


def _one_block(html: str) -> str:
    """HTML that Markdown keeps as one raw block: no blank line inside it (a newline before one is written as a
    character reference), and markdown-it's own line ends (a lone CR is one)."""
    html = html.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    return re.sub(r"\n(?=[ \t]*(?:\n|$))", "&#10;", html)
