"""The value a code block ends with, as the page may show it: its repr and its richest other representation
(`_repr_html_`, `_repr_svg_`, `_repr_png_`, a Pillow image), each within its cap, as Jupyter prefers them.

Part of the child process (runner.py imports it): the copy next to the runner, imported as `runvalues`; like the
runner it imports nothing from site_builder, so a post's code sees a plain interpreter."""

from __future__ import annotations

import base64
import io
import re
import sys
from typing import Any

OUTPUT_CAP = 1 << 20  # characters of a repr (the runner's default cap of what a block prints, too)
VALUE_CAPS = {"text/html": 1 << 20, "image/svg+xml": 1 << 20, "image/png": 5 << 20}  # bytes of a representation


def _rich_method(value: Any, name: str) -> Any:
    """What a `_repr_*_` method of the value gives (the data of a (data, metadata) pair); None if it has none or
    it fails (as IPython, objects answering any attribute name are not asked)."""
    try:
        if isinstance(value, type) or getattr(value, "_ipython_canary_method_should_not_exist_", None) is not None:
            return None
        method = getattr(value, name, None)
        data = method() if callable(method) else None
    except Exception:
        return None
    return data[0] if isinstance(data, tuple) and data else data


def _png(value: Any) -> bytes | None:
    data = _rich_method(value, "_repr_png_")
    if isinstance(data, str):  # IPython takes a str as base64 already
        try:
            data = base64.b64decode(data)
        except ValueError:
            data = None
    pil = sys.modules.get("PIL.Image")
    if not isinstance(data, bytes) and pil is not None and isinstance(value, pil.Image):  # a Pillow without it
        data = _pil_png(value)
    return data if isinstance(data, bytes) and data.startswith(b"\x89PNG") else None


def _pil_png(image: Any) -> bytes | None:
    for convert in (False, True):  # as it is, else as RGBA (a mode PNG cannot hold: CMYK, ...)
        buf = io.BytesIO()
        try:
            (image.convert("RGBA") if convert else image).save(buf, format="PNG")
            return buf.getvalue()
        except Exception:
            continue
    return None


def _rich(value: Any) -> tuple[str, str] | None:
    """The value's richest representation within its cap, as Jupyter prefers them: HTML, SVG, then PNG."""
    for mime, name in (("text/html", "_repr_html_"), ("image/svg+xml", "_repr_svg_")):
        data = _rich_method(value, name)
        if isinstance(data, str) and data.strip() and len(data.encode("utf-8", "replace")) <= VALUE_CAPS[mime]:
            return mime, data
    png = _png(value)
    if png is not None and len(png) <= VALUE_CAPS["image/png"]:
        return "image/png", base64.b64encode(png).decode("ascii")
    return None


_DEFAULT_REPR = re.compile(r" at 0x[0-9a-fA-F]{4,}>")


def represent(value: Any, cap: int = OUTPUT_CAP) -> dict[str, str] | None:
    """The value a block ends with, as the page may show it: `text/plain` (its repr, cut at `cap` characters) and
    its richest other representation, if any; None for None, and for a value whose only form is Python's default
    repr with its memory address (a function, a plot's `Line2D` list). A repr that raises fails the block, as in
    Jupyter."""
    if value is None:
        return None
    rich = _rich(value)
    text = repr(value)
    if _DEFAULT_REPR.search(text):  # `<X object at 0x7f...>`: nothing to read, and new each run
        if rich is None:
            return None
        text = _DEFAULT_REPR.sub(">", text)  # kept as the rich form's alternative text, without the address
    if len(text) > cap:
        text = text[:cap] + f"\n... ({len(text) - cap} more characters)"
    out = {"text/plain": text}
    if rich is not None:
        out[rich[0]] = rich[1]
    return out
