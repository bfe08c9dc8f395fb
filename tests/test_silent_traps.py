"""No silent traps (issue 15 item 4): what would quietly go unchecked is a warning at its line, naming what to write.

An ```output block that follows no python block, an unknown fence option, and what other tools (phmdoctest,
pytest-codeblocks, Sybil, MyST-NB) write for expected output, skips, setup and notebook cells. Every test runs the
real CLI on a small site in tmp_path.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from helpers import REPO, make_site, run_cli, write_post


def post(root: Path, name: str, body: str, execute: bool) -> Path:
    front = f"title: {name}\ndate: 2024-01-01" + ("\nexecute: true" if execute else "")
    return write_post(root, name, front, textwrap.dedent(body).lstrip("\n"))


def line_of(path: Path, needle: str, nth: int = 1) -> int:
    hits = [i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line]
    assert len(hits) >= nth, f"{needle!r} occurs {len(hits)} times in {path}"
    return hits[nth - 1]


def warnings(proc, rel: str) -> list[str]:
    """The `warning: content/posts/x.md:N: ...` lines of one post, without the `warning: ` prefix."""
    return [line[len("warning: ") :] for line in proc.stderr.splitlines() if line.startswith(f"warning: {rel}:")]


def bare(add: str = "", more: int = 0) -> str:
    """The warning about a bare block that phmdoctest would compare with what the code before it prints (in a post
    that does not run, one for the post: `more` such blocks below it)."""
    others = f" ({more} more such block{'s' if more > 1 else ''} below)" if more else ""
    return (
        f"a bare code block after python code is its expected output in phmdoctest; here it is not checked{others}: "
        f"{add}write it as ```output right after the code, or set `exec: {{conventions: [phmdoctest]}}` to check it"
    )


def conventions(name: str) -> str:
    tool = {"sybil": "Sybil"}.get(name, name)
    return f"or set `exec: {{conventions: [{name}]}}` to read it as {tool} does"


def out(proc) -> str:
    return f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"


UNPAIRED = """
    ```python
    print("one")
    ```

    A paragraph between the code and its output.

    ```output
    not what it prints
    ```

    ```bash
    echo two
    ```

    ```output
    two
    ```

    ```python
    print("three")
    ```

    ```output
    three
    ```

    ```output
    three again
    ```

    - a list whose last item ends with code:

      ```python
      print("four")
      ```

    ```output
    four
    ```

    ```python {skpi}
    print("five")
    ```
"""


def test_output_blocks_that_follow_no_python_block_warn(tmp_path):
    site = make_site(tmp_path / "site")
    path = post(site, "x.md", UNPAIRED, execute=True)
    rel = "content/posts/x.md"
    proc = run_cli("check", "--source", str(site))
    # nothing checks the unpaired outputs (the first one is wrong and the post still passes); the output after the
    # list belongs to the code that ends the list: it is checked (and right)
    assert proc.returncode == 0, out(proc)
    assert proc.stdout.splitlines()[-1] == "4 passed, 0 failed, 5 warnings", out(proc)
    assert warnings(proc, rel) == [
        f"{rel}:{line_of(path, '```output')}: this output block follows no python block, so nothing checks it "
        "(put it right after the code it shows)",
        f"{rel}:{line_of(path, '```bash')}: ```sh and ```bash blocks are shown here, not run (pytest-codeblocks "
        "runs them and fails on an error): write ```console for commands only shown, or set "
        "`exec: {conventions: [pytest-codeblocks]}` to run them as it does",
        f"{rel}:{line_of(path, '```output', 2)}: this output block follows a bash block, which does not run, so "
        "nothing checks it (put it right after the python code it shows, or write it as ```text)",
        f"{rel}:{line_of(path, '```output', 4)}: this output block follows another output block, so nothing checks "
        "it (a python block has one)",
        f"{rel}:{line_of(path, 'skpi')}: unknown code block option 'skpi', ignored (did you mean 'skip'?)",
    ], out(proc)
    # the output after the list is checked: a wrong one fails at its line
    path.write_text(path.read_text().replace("```output\nfour", "```output\nFOUR"), encoding="utf-8")
    proc = run_cli("check", "--source", str(site))
    assert proc.returncode == 1, out(proc)
    assert f"{rel}:{line_of(path, 'FOUR')}: OutputMismatch:" in proc.stdout, out(proc)


def test_a_post_without_execute_that_another_tool_would_test(tmp_path):
    site = make_site(tmp_path / "site")
    path = post(
        site,
        "phm.md",
        """
        Intro.

        <!--phmdoctest-skip-->
        ```python
        print("skipped there")
        ```

        ```python
        print("hello")
        ```
        ```
        hello
        ```

        <!-- skip -->
        ```python
        print("again")
        ```

        ```python
        print("bye")
        ```

        ```
        bye
        ```

        <!-- pytest-codeblocks:expected-output -->

        ```{code-cell} ipython3
        :tags: [remove-cell]

        1 + 1
        ```

        ```{code-cell} python
        2 + 2
        ```
    """,
        execute=False,
    )
    post(site, "plain.md", "```python\nprint(1)\n```\n\nprints\n\n```\n1\n```\n\n```text\n1\n```\n", execute=False)
    rel = "content/posts/phm.md"
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 0, out(proc)
    add = "add `execute: true` to the front matter"
    # one warning per kind and post, at its first occurrence
    assert warnings(proc, rel) == [
        f"{rel}:{line_of(path, 'phmdoctest-skip')}: `<!-- phmdoctest-skip -->` skips the next block in phmdoctest; "
        f"here this post's code does not run: {add} and write ```python {{skip}}, {conventions('phmdoctest')}",
        f"{rel}:{line_of(path, '```', 5)}: {bare(add + ' and ', more=1)}",  # the other, below: in this one
        f"{rel}:{line_of(path, 'expected-output')}: `<!-- pytest-codeblocks:expected-output -->` makes the next block "
        f"expected output in pytest-codeblocks; here this post's code does not run: {add} and write the expected "
        f"output as ```output right after the code, {conventions('pytest-codeblocks')}",
        f"{rel}:{line_of(path, 'code-cell')}: a ```{{code-cell}} block runs in MyST-NB; here it is not run: {add} "
        "(it then runs as a python block)",
    ], out(proc)
    # a bare block after prose is what phmdoctest compares too, but a post that does not run is text with code in
    # it: only in an executing post is it a trap (test_conventions), and a ```text block is none
    assert warnings(proc, "content/posts/plain.md") == [], out(proc)
    page = (site / "output" / "blog" / "2024" / "phm" / "index.html").read_text(encoding="utf-8")
    assert "remove-cell" not in page and '2</span> <span class="o">+</span>' in page  # the cell's options left
    assert '1</span> <span class="o">+</span>' not in page  # a removed cell is not shown, as in MyST-NB


def test_other_tools_conventions_in_an_executing_post(tmp_path):
    site = make_site(tmp_path / "site")
    path = post(
        site,
        "x.md",
        """
        <!-- skip -->
        ```python
        print("this runs here")
        ```

        ```
        this runs here
        ```

        <!-- pytest-codeblocks:cont -->
        ```python
        print("in the same session")
        ```

        <!--pytest.mark.xfail-->
        ```python
        print("no exception")
        ```

        ```{code-cell} ipython3
        :tags: [raises-exception]

        raise ValueError("as MyST-NB allows")
        ```

        ```{code-cell} python
        ---
        tags: [skip-execution, thebe-init]
        ---
        this is not Python
        ```

        ```{code-cell} python3
        :tags: [remove-cell]

        x = 1
        y = x / 0
        ```
    """,
        execute=True,
    )
    post(site, "y.md", "<!-- skip next -->\n```python\nprint(1)\n```\n\n<!-- skipped for now -->\n", execute=True)
    rel = "content/posts/x.md"
    proc = run_cli("check", "--source", str(site))
    # the skip comment does not skip here; code cells run as python blocks, their tags read
    assert proc.returncode == 1, out(proc)
    assert f"{rel}: ran (new): 4 passed, 1 failed, 1 skipped" in proc.stdout, out(proc)
    assert f"{rel}:{line_of(path, 'y = x / 0')}: ZeroDivisionError: division by zero" in proc.stdout, out(proc)
    assert warnings(proc, rel) == [
        f"{rel}:{line_of(path, '<!-- skip -->')}: `<!-- skip -->` skips the next block in other tools, not here: "
        "write ```python {skip}",
        f"{rel}:{line_of(path, '```', 3)}: {bare()}",
        f"{rel}:{line_of(path, 'xfail')}: `<!-- pytest.mark.xfail -->` expects the next block to fail in "
        "pytest-codeblocks, not here: write ```python {raises=ValueError} (the exception's name), "
        + conventions("pytest-codeblocks"),
        f"{rel}:{line_of(path, 'code-cell', 2)}: code cell options not read here: thebe-init (read: the tags "
        "skip-execution, remove-cell, remove-input, hide-input, remove-output, hide-output, raises-exception, "
        "hide-code)",
    ], out(proc)
    assert "codeblocks:cont" not in proc.stderr  # blocks share one session here: nothing to say
    # Sybil's colon is optional: `<!-- skip next -->` skips there, so it is named here too
    assert warnings(proc, "content/posts/y.md") == [
        f"content/posts/y.md:{line_of(site / 'content/posts/y.md', 'skip next')}: `<!-- skip next -->` skips the next "
        "block in Sybil, not here: write ```python {skip}, " + conventions("sybil")
    ], out(proc)


def test_the_bundled_posts_hold_no_trap():
    """The parse stage warns about nothing in the bundled site (build's stderr stays empty)."""
    from site_builder.config import load_config
    from site_builder.load import load_posts
    from site_builder.parse import parse_post

    config = load_config(REPO)
    found = [str(w) for p in load_posts(config) for w in parse_post(p).env.get("warnings", [])]
    assert found == []


MYST_CODE = """
    Text.

    ```{code-block} python
    :caption: demo.py
    :emphasize-lines: 1
    :name: demo
    x = 1
    print(x + 1)
    ```

    ```output
    2
    ```

    ```{doctest}
    >>> x * 10
    100
    ```

    ```{eval-rst}
    .. note:: hi
    ```
    """


def test_myst_code_directives_are_the_fences_they_stand_for(tmp_path):
    """```{code-block} python is a python block (its option lines out of the code, `:caption:` and
    `:emphasize-lines:` shown, any other named), ```{doctest} a doctest session, ```{eval-rst} text with a warning:
    they were code with "unknown code block option 'code-block'" and the option lines inside it."""
    site = make_site(tmp_path / "site")
    path = post(site, "run.md", MYST_CODE, execute=True)
    shown_path = post(site, "shown.md", MYST_CODE, execute=False)
    proc = run_cli("build", "--source", str(site), "--keep-going")
    assert proc.returncode == 1, out(proc)  # the doctest fails, at its example's line, as Sybil fails it
    rel = "content/posts/run.md"
    assert f"{rel}:{line_of(path, '>>> x * 10')}: OutputMismatch: expected '100', got '10'" in proc.stderr, out(proc)
    fence, rst = line_of(path, "{code-block}"), line_of(path, "{eval-rst}")
    assert warnings(proc, rel) == [
        f"{rel}:{fence}: MyST code-block options not read here: :name:, ignored (read: linenos, emphasize-lines, "
        "caption)",
        f"{rel}:{rst}: a ```{{eval-rst}} block holds reStructuredText, which MyST renders; here it is shown as its text",
    ], out(proc)
    assert "unknown code block option" not in proc.stderr, out(proc)
    shown = "content/posts/shown.md"
    assert (
        f"{shown}:{line_of(shown_path, '{doctest}')}: a ```{{doctest}} block is checked by Sybil; here it is shown, not "
        "run: add `execute: true` to the front matter (it then runs as a doctest)" in warnings(proc, shown)
    ), out(proc)
    page = (site / "output" / "blog" / "2024" / "run" / "index.html").read_text(encoding="utf-8")
    assert (
        '<span class="code-title">demo.py</span>' in page and '<span class="line hl"><span class="n">x</span>' in page
    )
    assert ":caption:" not in page and ":name:" not in page and 'class="output verified"' in page
    assert 'class="language-pycon"' in page and "{doctest}" not in page
