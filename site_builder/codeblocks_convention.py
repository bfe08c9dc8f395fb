"""pytest-codeblocks' Markdown as it reads it (`main.extract_from_buffer`), when `exec: {conventions:
[pytest-codeblocks]}` declares it: `<!--pytest-codeblocks:...-->` and `<!--pytest.mark...-->` comments, python, sh and
bash blocks (the shell ones run as it runs them), a python block inside an HTML comment run hidden. Marks on the
tokens, as `conventions` leaves them."""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from site_builder.conventions import WITH_REASON, Mark, Marks, closed, comments, line_of, shown_as_output

_CODEBLOCKS = re.compile(r"-*\s*pytest-codeblocks:(.*)", re.DOTALL)
_PYTEST_MARK = re.compile(r"-*\s*pytest\.mark\.(skip|skipif|xfail)\s*(?:\((.*)\))?\s*", re.DOTALL)
_HIDDEN_PYTHON = re.compile(r"\A\s*<!--[^\n]*\n\s*```python[^\n]*\n(.*?)^\s*```", re.DOTALL | re.MULTILINE)


def codeblocks(tokens: list[Token], mark: Mark, state: StateCore) -> None:
    """pytest-codeblocks (`main.extract_from_buffer`): skip, skipif, importorskip before a block; expected-output
    and cont after one; a python block inside an HTML comment runs hidden."""
    before = Marks()  # what the comments since the last block say of the next one
    then = ""  # "expected-output", "expected-output-ignore-whitespace" or "cont": the next fence to the last block
    last: int | None = None
    for i, tok in enumerate(tokens):
        hidden = _HIDDEN_PYTHON.search(tok.content) if tok.type == "html_block" else None
        if tok.type == "fence" and then:
            if last is None:
                mark(i).refused = f"<!--pytest-codeblocks:{then}--> but no previous code block: pytest-codeblocks fails"
            elif then == "cont":
                mark(last).cont.append(tok)
            else:
                m = mark(last)
                m.expected, m.expected_line = tok.content, line_of(state, tok)
                m.compare = "nospace" if then.endswith("whitespace") else "exact"
                shown_as_output(tokens[last], tok)
            mark(i).inert, then = last is not None, ""
        elif tok.type == "fence" or hidden is not None:
            if hidden is not None:
                mark(i).hidden_code = hidden[1]
            syntax = tok.info.strip()  # pytest-codeblocks runs exactly these (not `python {skip}`, not `shell`)
            if hidden is not None or syntax in ("python", "sh", "bash"):
                last = i
                m = mark(i)
                m.skip, m.skipif, m.importorskip, m.scope = before.skip, before.skipif, before.importorskip, "fresh"
                m.raises, m.xfail, m.shell = before.raises, before.xfail, syntax if syntax != "python" else ""
                if hidden is None and not closed(state, tok):
                    m.refused = "this block has no closing fence: pytest-codeblocks fails the file"
            before = Marks()
        for text in comments(tok) if tok.type == "html_block" and hidden is None else []:
            then = _codeblocks_directive(text, before) or then


def _codeblocks_directive(text: str, before: Marks) -> str:
    """One pytest-codeblocks comment: what it says of the next block (on `before`), or what the next fence is to
    the last block (returned)."""
    if (cb := _CODEBLOCKS.fullmatch(text)) is not None:
        word = cb[1].strip("- ")
        if word in ("expected-output", "expected-output-ignore-whitespace", "cont"):
            return word
        if word == "skip":
            before.skip = f"pytest-codeblocks:{word}"
        elif word in ("expect-exception", "expect-error"):  # pytest.mark.xfail, as the tool reads them
            before.raises, before.xfail = "Exception", True
        elif word.startswith("skipif(") and word.endswith(")"):
            before.skipif = f"{WITH_REASON}({word[7:-1]})"
        elif word.startswith("importorskip(") and word.endswith(")"):
            before.importorskip = word[13:-1].strip("\"' ")
    elif (pm := _PYTEST_MARK.fullmatch(text)) is not None:
        if pm[1] == "skip":
            before.skip = "pytest.mark.skip"
        elif pm[1] == "xfail":  # may raise (what `raises=` names: another exception fails); one that runs to its
            # end passes, counted as pytest counts it: XPASS (not a failure, as xfail_strict is off)
            raises = re.search(r"raises\s*=\s*([\w.]+)", pm[2] or "")
            before.raises, before.xfail = raises[1] if raises else "Exception", True
        elif pm[2]:
            before.skipif = f"{WITH_REASON}({pm[2]})"
    return ""
