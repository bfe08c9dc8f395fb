"""Jupyter notebooks as posts: front matter (a raw cell, or metadata), Markdown cells, stored outputs, executed
cells reported at their cell and line, and malformed notebooks.

Every test writes a tiny site with its notebooks (nbformat's own writer) into tmp_path and runs the real CLI.
"""

from __future__ import annotations

import base64
import json
import pickle
import re
import struct
import zlib
from pathlib import Path

import nbformat
import pytest
from helpers import assert_one_line_error, make_site, run_cli
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

FRONT = "---\ntitle: A Notebook\ndate: 2024-03-04\ntags: [jupyter]\n---"


def png(width: int = 2, height: int = 1) -> str:
    """A tiny real PNG, base64 as notebooks store it."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    head = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    return base64.b64encode(data).decode()


def executing_front(title: str):
    """A first raw cell of front matter for a notebook whose code runs."""
    return new_raw_cell(f"---\ntitle: {title}\ndate: 2024-03-04\nexecute: true\n---")


def write_notebook(root: Path, cells: list, name: str = "nb.ipynb", metadata: dict | None = None) -> Path:
    nb = new_notebook()
    nb.cells = cells
    nb.metadata.update(metadata or {})
    path = root / "content" / "posts" / name
    nbformat.write(nb, str(path))
    return path


def build(root: Path, *args: str):
    return run_cli("build", "--source", str(root), *args)


def page(root: Path, url: str) -> str:
    return (root / "output" / url.lstrip("/") / "index.html").read_text(encoding="utf-8")


def body_of(html: str) -> str:
    return html.split('<div class="post-body">', 1)[1].split("</article>", 1)[0]


def test_a_notebook_with_a_raw_yaml_cell_is_a_post_with_its_markdown_math_attachments_and_stored_outputs(tmp_path):
    root = make_site(tmp_path / "site")
    text = new_markdown_cell("## Euler\n\nThe identity $e^{i\\pi} + 1 = 0$.\n\n![a red dot](attachment:dot.png)")
    text.attachments = {"dot.png": {"image/png": png()}}
    code = new_code_cell(
        "s = '```'\nprint('one\\n\\ntwo')",
        outputs=[
            new_output("stream", name="stdout", text="one\n\ntwo\n"),
            new_output("stream", name="stderr", text="careful <now>\n"),
            new_output(
                "execute_result",
                data={
                    "text/plain": "Table()",
                    "text/html": '<table><tr><td onclick="steal()">cell</td></tr></table><script>alert(1)</script>'
                    '<a href="javascript:alert(2)">link</a><style>body{display:none}</style>',
                },
                execution_count=1,
            ),
            new_output("display_data", data={"image/png": png(3, 2), "text/plain": "<Figure size 3x2>"}),
            new_output("error", ename="KeyError", evalue="'missing'", traceback=["\x1b[31mKeyError\x1b[0m"]),
        ],
    )
    write_notebook(root, [new_raw_cell(FRONT + "\n"), text, code, new_raw_cell("<b>raw, not published</b>")])
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    html = page(root, "/blog/2024/nb/")
    assert "<title>A Notebook" in html and 'datetime="2024-03-04' in html and "/blog/tag/jupyter/" in html
    body = body_of(html)
    assert '<h2 id="euler">' in body and "<math" in body and "e^{i\\pi}" in body
    assert re.search(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]+" alt="a red dot"', body)
    assert "&#x27;```&#x27;" in body or "'```'" in body  # the code cell's own backticks stay code
    pre = re.search(r'<div class="output"><pre><code>(.*?)</code></pre></div>', body, re.S)
    assert pre is not None and pre.group(1).replace("&#10;", "\n") == "one\n\ntwo\n"
    assert '<div class="output stderr"><pre><code>careful &lt;now&gt;\n</code></pre></div>' in body
    value = re.search(r'<div class="output value value-html">.*?</div></div>', body, re.S)
    assert value is not None and "<table>" in value.group(0) and "<td>cell</td>" in value.group(0)
    assert "Out:" in value.group(0)
    for bad in ("<script", "alert(", "onclick", "javascript:", "<style", "display:none"):
        assert bad not in body, bad
    figure = re.search(
        r'<div class="output value value-png"><div class="value-body"><img src="data:image/png;base64,', body
    )
    assert figure is not None and 'width="3" height="2"' in body
    assert '<div class="output raised"><pre><code>KeyError: &#x27;missing&#x27;</code></pre></div>' in body
    assert "raw, not published" not in body


def test_an_executed_notebook_reports_a_failing_cell_at_its_cell_and_line(tmp_path):
    root = make_site(tmp_path / "site")
    cells = [
        executing_front("Fails"),
        new_markdown_cell("Some text\nover two lines."),
        new_code_cell("x = 1\n1 / 0"),
    ]
    write_notebook(root, cells)
    proc = build(root)
    assert proc.returncode == 1, proc.stderr
    assert "content/posts/nb.ipynb:cell 3:line 2: ZeroDivisionError: division by zero" in proc.stderr
    assert 'File "content/posts/nb.ipynb", cell 3, line 2, in <module>' in proc.stderr
    assert re.search(r"cell 3, line 2, in <module>\n\s+1 / 0\n", proc.stderr), proc.stderr  # its code, not JSON
    assert "Traceback" not in proc.stderr
    checked = run_cli("check", "--source", str(root))
    assert checked.returncode == 1
    assert "content/posts/nb.ipynb:cell 3:line 2: ZeroDivisionError: division by zero" in checked.stdout


def test_an_executed_notebook_shows_live_outputs_not_stored_ones_and_check_counts_its_cells(tmp_path):
    root = make_site(tmp_path / "site")
    stale = [new_output("stream", name="stdout", text="STALE OUTPUT\n")]
    cells = [
        executing_front("Runs"),
        new_code_cell("def f(x):\n    return x * 21", outputs=stale),
        new_markdown_cell("Then:"),
        new_code_cell("print('live output')\nf(2)", outputs=stale),
    ]
    write_notebook(root, cells)
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    body = body_of(page(root, "/blog/2024/nb/"))
    assert '<div class="output"><pre><code>live output\n</code></pre></div>' in body
    assert (
        '<div class="output value value-text"><span class="value-label">Out:</span><pre tabindex="0"><code>42' in body
    )
    assert "STALE" not in body
    checked = run_cli("check", "--source", str(root))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip().splitlines()[-1] == "2 passed, 0 failed"


def test_front_matter_in_notebook_metadata(tmp_path):
    root = make_site(tmp_path / "site")
    meta = {"site_builder": {"title": "From Metadata", "date": "2024-05-06", "slug": "meta", "tilte": "x"}}
    write_notebook(root, [new_markdown_cell("Hello *there*.")], metadata=meta)
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    html = page(root, "/blog/2024/meta/")
    assert "<title>From Metadata" in html and "<p>Hello <em>there</em>.</p>" in html
    warning = "content/posts/nb.ipynb:metadata.site_builder: unknown key 'tilte', ignored (did you mean 'title'?)"
    assert warning in proc.stderr


def test_a_raw_cell_wins_over_metadata_and_its_keys_warn_at_their_cell_line(tmp_path):
    root = make_site(tmp_path / "site")
    meta = {"site_builder": {"title": "Not This", "date": "2024-05-06"}}
    write_notebook(root, [new_raw_cell(FRONT.replace("tags:", "tgas:")), new_markdown_cell("x")], metadata=meta)
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    assert "<title>A Notebook" in page(root, "/blog/2024/nb/")
    assert "content/posts/nb.ipynb:cell 1:line 4: unknown key 'tgas', ignored (did you mean 'tags'?)" in proc.stderr
    assert "content/posts/nb.ipynb:cell 1: metadata.site_builder holds front matter too, ignored" in proc.stderr


@pytest.mark.parametrize("execute", [False, True])
def test_a_notebooks_markdown_problems_warn_at_their_cell_and_line(tmp_path, execute):
    root = make_site(tmp_path / "site")
    front = FRONT.replace("---\n", "---\nexecute: true\n", 1) if execute else FRONT
    cells = [
        new_raw_cell(front),
        new_markdown_cell("# Intro\n\nSome text.\n\nBad math: $\\frac{1}{$ here.\n\n![gone](nope.png)"),
        new_code_cell("print(1)"),
        new_markdown_cell("More\n\n```python {bogus}\nx = 1\n```"),
    ]
    write_notebook(root, cells)
    where = "content/posts/nb.ipynb:"
    for proc in (build(root), run_cli("check", "--source", str(root))):
        assert proc.returncode == 0, proc.stderr
        assert f"warning: {where}cell 4:line 3: unknown code block option 'bogus'" in proc.stderr
    stderr = build(root, "--rerun").stderr
    assert f"warning: {where}cell 2:line 5: cannot render math" in stderr
    assert f"warning: {where}cell 2:line 7: image 'nope.png'" in stderr


@pytest.mark.parametrize(
    ("front", "pattern"),
    [
        ("---\ndate: 2024-01-01\n---", r"^error: content/posts/nb\.ipynb:cell 1:line 1: front matter has no 'title'$"),
        (
            "---\ntitle: T\n\ndate: 2024-13-45\n---",
            r"^error: content/posts/nb\.ipynb:cell 1:line 4: .*not a valid date",
        ),
        ("---\ntitle: T\ndate: someday\n---", r"^error: content/posts/nb\.ipynb:cell 1:line 3: 'date' is not a date"),
        (
            "---\ntitle: T\ndate: 2024-01-01\n",
            r"^error: content/posts/nb\.ipynb:cell 1:line 1: front matter is not closed",
        ),
    ],
)
def test_bad_front_matter_in_a_raw_cell_is_one_error_at_its_cell_line(tmp_path, front, pattern):
    root = make_site(tmp_path / "site")
    write_notebook(root, [new_raw_cell(front), new_markdown_cell("x")])
    assert_one_line_error(build(root), pattern)


def test_a_notebook_without_front_matter_or_without_a_date_in_metadata(tmp_path):
    root = make_site(tmp_path / "site")
    write_notebook(root, [new_markdown_cell("x")])
    assert_one_line_error(build(root), r"^error: content/posts/nb\.ipynb: no front matter: .*metadata\.site_builder")
    write_notebook(root, [new_markdown_cell("x")], metadata={"site_builder": {"title": "T"}})
    assert_one_line_error(
        build(root), r"^error: content/posts/nb\.ipynb:metadata\.site_builder: front matter has no 'date'$"
    )


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ('{"nbformat": 4, "cells": [', r"nb\.ipynb:1: not a notebook: not JSON"),
        ("[1, 2]", r"nb\.ipynb:1: not a notebook: JSON, but not an object with cells"),
        (
            '{"nbformat": 9, "nbformat_minor": 0, "metadata": {}, "cells": []}',
            r"nb\.ipynb: not a notebook nbformat can",
        ),
        (
            json.dumps(
                {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "source": 3}]}
            ),
            r"nb\.ipynb: not a (valid )?notebook",
        ),
        ("[" * 50_000 + "]" * 50_000, r"nb\.ipynb(:1)?: not a notebook"),
    ],
)
def test_a_malformed_notebook_is_one_error_line(tmp_path, text, pattern):
    root = make_site(tmp_path / "site")
    (root / "content" / "posts" / "nb.ipynb").write_text(text, encoding="utf-8")
    assert_one_line_error(build(root), r"^error: content/posts/" + pattern)


def test_a_notebook_over_the_post_size_cap_is_refused(tmp_path):
    root = make_site(tmp_path / "site")
    path = write_notebook(root, [new_raw_cell(FRONT), new_markdown_cell("x" * (11 * 2**20))])
    assert path.stat().st_size > 10 * 2**20
    assert_one_line_error(build(root), r"^error: content/posts/nb\.ipynb:1: post is 11\.0 MB, more than the 10 MB")


def test_a_failure_of_a_notebook_taken_from_the_last_builds_state_is_still_at_its_cell(tmp_path):
    """The notebook file is unchanged, so the second build takes its post from the state; its data file changed,
    so its code runs again and fails."""
    root = make_site(tmp_path / "site")
    front = "---\ntitle: Data\ndate: 2024-03-04\nexecute: true\nexec:\n  files: [n.txt]\n---"
    write_notebook(root, [new_raw_cell(front), new_code_cell("n = int(open('n.txt').read())\nprint(10 / n)")])
    (root / "content" / "posts" / "n.txt").write_text("5\n", encoding="utf-8")
    assert build(root).returncode == 0
    (root / "content" / "posts" / "n.txt").write_text("0\n", encoding="utf-8")
    proc = build(root)
    assert proc.returncode == 1
    assert "content/posts/nb.ipynb:cell 2:line 2: ZeroDivisionError: division by zero" in proc.stderr


def test_a_cell_map_places_body_lines_at_their_cells(tmp_path):
    from site_builder import notebook

    front, cells = notebook.read_notebook(
        nbformat.writes(nbformat.v4.new_notebook(cells=[new_raw_cell(FRONT), new_code_cell("a = 1\nb = 2")])).encode(),
        "content/posts/pickled.ipynb",
    )
    assert front.body.startswith("```python\na = 1\nb = 2\n```")
    assert cells.where(front.body_line + 2) == "cell 2:line 2" and cells.where(2) == "cell 1:line 2"
    again = pickle.loads(pickle.dumps(cells))  # as a forked worker or the build cache hands it back
    assert notebook.cell_location(again, front.body_line + 1) == "content/posts/pickled.ipynb:cell 2:line 1"
    assert notebook.cell_location(None, 3) is None


def test_pytest_collects_an_executing_notebook_by_cell_and_counts_as_check_does(tmp_path):
    from test_pytest_plugin import outcome, run_pytest

    root = make_site(tmp_path / "site")
    cells = [
        executing_front("Runs"),
        new_code_cell("x = 20\nprint(x + 1)"),
        new_markdown_cell("Then:"),
        new_code_cell("y = x * 2\nassert y == 41, y"),
    ]
    write_notebook(root, cells)
    write_notebook(
        root, [new_raw_cell("---\ntitle: Still\ndate: 2024-03-05\n---"), new_code_cell("1 / 0")], "off.ipynb"
    )
    proc = run_pytest(root)
    assert outcome(proc, "content/posts/nb.ipynb::cell 2:line 1").startswith("PASSED")
    assert outcome(proc, "content/posts/nb.ipynb::cell 4:line 1").startswith("FAILED")
    assert "off.ipynb" not in proc.stdout  # not executing: nothing to collect
    assert "content/posts/nb.ipynb:cell 4:line 2: AssertionError: 40" in proc.stdout
    checked = run_cli("check", "--source", str(root))
    assert checked.stdout.strip().splitlines()[-1] == "1 passed, 1 failed"
    assert re.search(r"\b1 failed, 1 passed\b", proc.stdout), proc.stdout[-500:]


@pytest.mark.parametrize("execute", [True, False])
def test_cell_tags_and_quarto_option_lines_choose_what_is_shown(tmp_path, execute):
    """Jupyter Book's tags (`remove-input`: the plot and not the code that drew it) and Quarto's `#|` lines, in a
    notebook that runs and in one whose stored outputs are shown. Before, the code was shown whatever the tags
    said, and Quarto's `#|` lines were shown as part of the code."""
    root = make_site(tmp_path / "site")
    stored = [new_output("stream", name="stdout", text="STORED\n")]

    def cell(code: str, tags: list[str] | None = None):
        made = new_code_cell(code, outputs=stored)
        if tags:
            made.metadata["tags"] = tags
        return made

    front = executing_front("Tags") if execute else new_raw_cell(FRONT)
    cells = [
        front,
        cell("print('only the output ' + 'A')", ["remove-input"]),
        cell("print('only the code B')", ["hide-output"]),
        cell("print('nothing C')", ["remove-cell"]),
        cell("#| echo: false\nprint('quarto output ' + 'D')"),
    ]
    write_notebook(root, cells)
    proc = build(root)
    assert proc.returncode == 0, proc.stderr
    body = body_of(page(root, "/blog/2024/nb/"))
    text = re.sub(r"<[^>]+>", "", body)
    shown = "only the output A" if execute else "STORED"
    assert shown in text and "print(&#x27;only the output" not in body and "only the output &#x27;" not in text
    assert "print" in text and "only the code B" in text and "nothing C" not in text
    assert "#|" not in text and "print(&#x27;quarto output" not in body
    if execute:
        assert "quarto output D" in text and "only the code B\n" not in text
        assert text.count("STORED") == 0
    else:
        assert text.count("STORED") == 2  # the remove-input cell's and the Quarto cell's; not hide-output's
