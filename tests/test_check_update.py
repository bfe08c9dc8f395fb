"""`check --update`: stale output blocks and doctest outputs rewritten with what the code prints now, every other
byte of the post file kept; blocks that raised what they did not expect left alone; a file edited meanwhile refused.

Through the real CLI, except the file edited while its code runs (a post cannot reach its own file), which calls the
update step in-process between the run and the write."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from helpers import make_site
from test_execute import check, exec_post, out, post_line, summary

FRONT = "---\ntitle: {name}\ndate: 2024-01-01\nexecute: true\n---\n\n"

# {list}, {quote} and {last} are the stale outputs; the rest must come back byte for byte (trailing spaces, a tab,
# a block without an output block, which gets none)
POST = """\
Some prose with trailing spaces.{spaces}
A line ending in a tab\t

```python
print("kept")
```

```output
kept
```

```python
print("no output block")
```

- a list item

  ```python
  for i in range(3):
      print("line", i)
  ```

  ```output
{list}  ```

> ```python
> print("quoted")
> ```
>
> ```output
{quote}> ```

Text after.{spaces}

```python
print("last")
```

```output
{last}```"""

STALE = {"list": "  line 0\n  stale\n", "quote": "> old quoted\n", "last": "old last\n"}
FRESH = {"list": "  line 0\n  line 1\n  line 2\n", "quote": "> quoted\n", "last": "last\n"}

DOCTEST = """\
```pycon
>>> x = 2
>>> x * 21
{answer}
>>> for i in range(2):
...     print(i)
...     print()
{loop}
>>> print("same")
same
```

```python
>>> print("a", "b")
{ab}
```
"""

DOC_STALE = {"answer": "41", "loop": "0", "ab": "stale"}
DOC_FRESH = {"answer": "42", "loop": "0\n<BLANKLINE>\n1", "ab": "a b"}


def post_bytes(name: str, body: str, newline: str = "\n") -> bytes:
    return (FRONT.format(name=name) + body).replace("\n", newline).encode("utf-8")


def test_update_rewrites_only_the_stale_outputs(tmp_path):
    site = make_site(tmp_path / "site")
    posts = site / "content" / "posts"
    files = {
        # no final newline, trailing spaces in prose
        "lf.md": (
            post_bytes("lf", POST.format(spaces="   ", **STALE)),
            post_bytes("lf", POST.format(spaces="   ", **FRESH)),
        ),
        "crlf.md": (
            post_bytes("crlf", POST.format(spaces=" ", **STALE) + "\n", "\r\n"),
            post_bytes("crlf", POST.format(spaces=" ", **FRESH) + "\n", "\r\n"),
        ),
        "doc.md": (post_bytes("doc", DOCTEST.format(**DOC_STALE)), post_bytes("doc", DOCTEST.format(**DOC_FRESH))),
    }
    for name, (before, _) in files.items():
        (posts / name).write_bytes(before)

    proc = check(site)
    assert proc.returncode == 1, out(proc)
    assert summary(proc) == "4 passed, 8 failed", out(proc)

    proc = check(site, "--update")
    assert proc.returncode == 0, out(proc)
    for name, (_, after) in files.items():
        assert (posts / name).read_bytes() == after, name
    assert ": 5 passed, 0 failed, 0 skipped, 3 updated" in post_line(proc, "content/posts/lf.md"), out(proc)
    assert "--- content/posts/doc.md\n+++ content/posts/doc.md (updated)\n" in proc.stdout, out(proc)
    assert "\n-41\n+42\n" in proc.stdout and "\n 0\n+<BLANKLINE>\n+1\n" in proc.stdout, out(proc)
    assert "\n   ```output\n   line 0\n-  stale\n+  line 1\n+  line 2\n   ```\n" in proc.stdout, out(proc)
    assert "\r" not in proc.stdout
    assert proc.stdout.splitlines()[-2:] == ["updated 8 blocks in 3 files", "12 passed, 0 failed"], out(proc)

    proc = check(site)
    assert proc.returncode == 0, out(proc)
    assert summary(proc) == "12 passed, 0 failed"


def test_update_leaves_blocks_that_raised_alone(tmp_path):
    site = make_site(tmp_path / "site")
    boom_body = textwrap.dedent(
        """
        ```python
        print("fresh")
        ```

        ```output
        {first}
        ```

        ```python
        print("before")
        raise ValueError("boom")
        ```

        ```output
        old
        ```
        """
    ).lstrip("\n")
    boom = exec_post(site, "boom.md", boom_body.format(first="stale"))
    mixed = exec_post(site, "mixed.md", "```pycon\n>>> 1 + 1\n3\n>>> 1 / 0\n0\n```\n")
    mixed_before = mixed.read_bytes()

    proc = check(site, "--update")
    assert proc.returncode == 1, out(proc)
    assert boom.read_text(encoding="utf-8").endswith(boom_body.format(first="fresh"))
    assert mixed.read_bytes() == mixed_before
    raise_line = boom.read_text(encoding="utf-8").splitlines().index('raise ValueError("boom")') + 1
    assert f"content/posts/boom.md:{raise_line}: ValueError: boom" in proc.stdout, out(proc)
    assert "content/posts/mixed.md:8: not updated: an example raised ZeroDivisionError (line 10)" in proc.stderr
    assert proc.stdout.splitlines()[-2:] == ["updated 1 block in 1 file", "1 passed, 2 failed"], out(proc)


@pytest.mark.parametrize("when", ["during the run", "before the write"])
def test_a_file_edited_meanwhile_is_refused_and_kept(tmp_path, when):
    from site_builder.check import check_site, update_site
    from site_builder.execute.blocks import code_blocks
    from site_builder.execute.options import ExecOptions
    from site_builder.execute.update import Changed, plan_update, write_update

    site = make_site(tmp_path / "site")
    path: Path = exec_post(site, "x.md", '```python\nprint("new")\n```\n\n```output\nold\n```\n')
    report = check_site(site, ExecOptions())
    assert report.failed == 1
    edited = path.read_bytes() + b"\nA paragraph written meanwhile.\n"
    if when == "during the run":
        path.write_bytes(edited)
        update = update_site(report)
        assert update.refused == [
            "content/posts/x.md changed while its code ran; not updated (run check --update again)"
        ]
        assert not update.files and report.failed == 1
    else:
        parsed = report.parsed["content/posts/x.md"]
        planned = plan_update(parsed.post, code_blocks(parsed), report.runs["content/posts/x.md"])
        assert planned.updated == [0]
        path.write_bytes(edited)
        with pytest.raises(Changed, match=r"content/posts/x\.md changed while check ran"):
            write_update(planned)
    assert path.read_bytes() == edited


def test_a_notebook_is_left_alone_and_its_stale_block_named_at_its_cell(tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_raw_cell

    root = make_site(tmp_path / "site")
    path = root / "content" / "posts" / "nb.ipynb"
    nb = new_notebook(cells=[new_raw_cell("---\ntitle: NB\ndate: 2024-01-01\nexecute: true\n---")])
    nb.cells.append(new_code_cell(">>> x = 1\n>>> x + 1\n3"))
    nbformat.write(nb, str(path))
    before = path.read_bytes()
    proc = check(root, "--update")
    assert proc.returncode == 1, out(proc)
    note = "content/posts/nb.ipynb:cell 2:line 2: not updated: check --update rewrites Markdown posts"
    assert note in proc.stdout + proc.stderr, out(proc)
    assert path.read_bytes() == before
