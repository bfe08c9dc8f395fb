"""Other tools' Markdown keeps its verdicts (issue 33): with `exec: {conventions: [TOOL]}`, each fixture of phmdoctest,
Sybil and pytest-codeblocks passes, fails or is skipped as that tool's own tests say, with the tool's count of
tests where it counts them; without the setting, `check --strict` fails on every one the tool fails.

The fixtures: ../shared/corpus/doctests (phmdoctest and Sybil, unedited) and tests/data/conventions (phmdoctest's
failing fixtures, pytest-codeblocks' test Markdown). Every post goes through one `check` run (`check_site`, in this
process; the posts run in their sandboxes).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import REPO, make_site

SHARED = (
    next(
        (p for p in (REPO.parent / "shared", REPO.parent.parent / "shared") if (p / "corpus" / "doctests").is_dir()),
        REPO.parent / "shared",
    )
    / "corpus"
    / "doctests"
)
LOCAL = REPO / "tests" / "data" / "conventions"
CONVENTION = {"phmdoctest": "phmdoctest", "sybil": "sybil", "pytest-codeblocks": "pytest-codeblocks"}


@dataclass(frozen=True)
class Verdict:
    """What the tool says of a file: passed, failed or skipped, and its tests (passed, failed, skipped) where it
    counts them as blocks (None: the tool refuses the file, or counts doctest examples)."""

    verdict: str
    counts: tuple[int, int, int] | None = None
    xfail: tuple[int, int] = (0, 0)  # pytest's xfailed and xpassed


def ok(p: int, s: int = 0) -> Verdict:
    return Verdict("skipped" if s and not p else "passed", (p, 0, s))


def xfail(xfailed: int, xpassed: int) -> Verdict:
    """pytest-codeblocks' xfail blocks: raised (xfailed) or ran to their end (xpassed, an unexpected pass: not a
    failure)."""
    return Verdict("passed", (0, 0, 0), (xfailed, xpassed))


def bad(p: int | None = None, f: int = 1, s: int = 0) -> Verdict:
    return Verdict("failed", None if p is None else (p, f, s))


# phmdoctest: pytest's summary of the generated test file (its tests/test_examples.py, test_many_markdown.py,
# test_group_*.py); doc_setup*, setup_with_inline: `phmdoctest FILE` as it is (their tests pass --setup FIRST
# --teardown LAST, the `+args` posts below). Sybil: its examples (each doctest example, block and skip directive:
# its tests/test_myst_*.py and docs/*.rst check_path; all parsers of sybil.parsers.markdown / .myst).
# pytest-codeblocks: its tests' assert_outcomes.
EXPECTED = {
    "phmdoctest/doc_directive1.md": ok(3, 1),
    "phmdoctest/doc_directive2.md": ok(3),
    "phmdoctest/doc_directive3.md": ok(9),
    "phmdoctest/doc_example2.md": ok(7),
    "phmdoctest/doc_inline_example.md": ok(2),
    "phmdoctest/doc_mark_example.md": ok(3),
    "phmdoctest/doc_my_markdown_file.md": ok(0),
    "phmdoctest/doc_setup.md": bad(1, 4),
    "phmdoctest/doc_setup_doctest.md": bad(1, 6),
    "phmdoctest/tests_direct.md": bad(),  # two setup directives: phmdoctest refuses the file
    "phmdoctest/tests_empty_code_block.md": ok(0),
    "phmdoctest/tests_empty_output_block.md": ok(2),
    "phmdoctest/tests_ignored_directives.md": ok(1),
    "phmdoctest/tests_managenamespace.md": ok(1),
    "phmdoctest/tests_one_code_block.md": ok(1),
    "phmdoctest/tests_setup_only.md": ok(1),
    "phmdoctest/tests_setup_with_inline.md": bad(1, 2),
    "phmdoctest/tests_twentysix_session_blocks.md": ok(26),
    "phmdoctest/doc_setup.md+args": ok(3),
    "phmdoctest/doc_setup_doctest.md+args": ok(5),  # and phmdoctest's session_00000, which only fills names
    "phmdoctest/tests_setup_with_inline.md+args": ok(1),
    "sybil/docs_examples_markdown_clear.md": ok(4, 0),
    "sybil/docs_examples_markdown_codeblock-python.md": ok(1, 0),
    "sybil/docs_examples_markdown_doctest.md": ok(2, 0),
    "sybil/docs_examples_markdown_skip.md": ok(12, 3),
    "sybil/docs_examples_myst_clear-html-comment.md": ok(4, 0),
    "sybil/docs_examples_myst_codeblock-python-code-cell.md": ok(4, 0),
    "sybil/docs_examples_myst_codeblock-python.md": ok(4, 0),
    "sybil/docs_examples_myst_doctest.md": ok(3, 0),
    "sybil/docs_examples_myst_skip.md": ok(14, 3),
    "sybil/tests_functional_myst_doctest.md": bad(2, 1),
    "sybil/tests_functional_myst_python.md": bad(6, 1),
    "sybil/tests_samples_myst-clear.md": ok(4, 0),
    "sybil/tests_samples_myst-code-cell.md": ok(1, 0),
    "sybil/tests_samples_myst-codeblock-blank-lines.md": bad(0, 1),
    "sybil/tests_samples_myst-codeblock.md": bad(4, 3),
    "sybil/tests_samples_myst-doctest.md": bad(6, 1),
    "local/phmdoctest/bad_session_output.md": bad(0, 1),
    "local/phmdoctest/bad_skipif_number.md": bad(),
    "local/phmdoctest/does_not_print.md": bad(0, 1),
    "local/phmdoctest/extra_line_in_output.md": bad(0, 1),
    "local/phmdoctest/label_not_identifier.md": bad(),
    "local/phmdoctest/missing_some_output.md": bad(0, 1),
    "local/phmdoctest/one_mark_skip.md": ok(0, 1),
    "local/phmdoctest/output_has_blank_lines.md": ok(1),
    "local/phmdoctest/unexpected_output.md": bad(0, 1),
    "local/pytest-codeblocks/cont.md": ok(1),
    "local/pytest-codeblocks/expect_error.md": xfail(1, 0),
    "local/pytest-codeblocks/expect_error_fail.md": xfail(0, 1),  # XPASS: no exception, and not a failure
    "local/pytest-codeblocks/expect_error_runtimeerror.md": xfail(1, 0),
    "local/pytest-codeblocks/expect_error_indexerror.md": bad(0, 1),
    "local/pytest-codeblocks/expected_output.md": ok(1),
    "local/pytest-codeblocks/expected_output_fail.md": bad(0, 1),
    "local/pytest-codeblocks/expected_output_ignore_whitespace.md": ok(1),
    "local/pytest-codeblocks/hidden_cont.md": ok(1),
    "local/pytest-codeblocks/isolated.md": bad(1, 1),  # here, without the setting, blocks share names
    "local/pytest-codeblocks/nocont.md": bad(),
    "local/pytest-codeblocks/skip_expected_output.md": ok(0, 1),
    "local/pytest-codeblocks/skipif.md": ok(0, 1),
    "local/pytest-codeblocks/skipif2.md": ok(1),
    "local/pytest-codeblocks/skipif_expected_output.md": ok(0, 1),
    "local/pytest-codeblocks/skipif_expected_output2.md": ok(1),
    "local/pytest-codeblocks/importorskip.md": ok(0, 1),
    "local/pytest-codeblocks/importorskip2.md": ok(1),
    "local/pytest-codeblocks/skip.md": ok(0, 2),
    "local/pytest-codeblocks/basic.md": ok(1),
    "local/pytest-codeblocks/unicode.md": ok(1),
    "local/pytest-codeblocks/cont_1.md": ok(1),  # <!---pytest-codeblocks:cont--->
    "local/pytest-codeblocks/cont_3.md": ok(1),  # <!--- pytest-codeblocks:cont --->
    "local/pytest-codeblocks/expected_output_ignore_whitespace_fail.md": bad(0, 1),
    "local/pytest-codeblocks/unclosed.md": bad(),  # pytest-codeblocks errors: "Hit end-of-file prematurely"
    "local/pytest-codeblocks/shell.md": ok(2),  # sh and bash blocks run, as the tool runs them
    "local/pytest-codeblocks/shell_fail.md": bad(0, 1),
    "local/pytest-codeblocks/shell_expect_fail.md": xfail(1, 0),
    "local/pytest-codeblocks/shell_expect_fail_passed.md": xfail(0, 1),
    "local/pytest-codeblocks/shell_expect_output.md": ok(1),
    "local/pytest-codeblocks/shell_expect_output_fail.md": bad(0, 1),
    "local/pytest-codeblocks/bash.md": ok(1),
    # Sybil's fixtures that are not in ../shared (its examples: all parsers of sybil.parsers.markdown / .myst)
    "local/sybil/docs_examples_markdown_codeblock-bash.md": ok(0),
    "local/sybil/docs_examples_markdown_number.md": bad(1, 1),
    "local/sybil/docs_examples_myst_clear.md": ok(4),
    "local/sybil/docs_examples_myst_doctest-directive.md": ok(2),
    "local/sybil/docs_examples_myst_doctest-eval-rst.md": ok(0),  # {eval-rst}: for Sybil's ReST parsers
    "local/sybil/tests_functional_markdown_doctest.md": ok(1),
    "local/sybil/tests_functional_markdown_python.md": bad(4, 1),
    "local/sybil/tests_samples_doctest_rest_nested_in_md.md": ok(0),
    "local/sybil/tests_samples_markdown-fenced-code-block.md": ok(0),
    "local/sybil/tests_samples_myst-code.md": ok(1),
    "local/sybil/tests_samples_myst-codeblock-blank-lines-indented.md": bad(0, 1),  # an indented fence: Sybil runs it
    "local/sybil/tests_samples_myst-codeblock-doctests-end-of-fenced-codeblocks.md": ok(2),
    "local/sybil/tests_samples_myst-codeblock-future-imports.md": bad(1, 2),
    "local/sybil/tests_samples_myst-codeblock-lolcode.md": ok(0),
    "local/sybil/tests_samples_myst-codeblock-subclassing.md": bad(2, 1),
    "local/sybil/tests_samples_myst-doctest-fail.md": bad(0, 2),
    "local/sybil/tests_samples_myst-doctest-use-rest.md": ok(5),
    "local/sybil/tests_samples_myst-skip.md": ok(9),
    "local/sybil/tests_samples_myst-sourcecode.md": ok(1),
    # MyST directives that are not code ({toctree}, {py:module}, {note}, ...): no example, no word under the setting
    "local/sybil/tests_functional_myst_index.md": ok(0),
    "local/sybil/tests_samples_myst-complicated-nesting.md": ok(0),
    "local/sybil/tests_samples_myst-directive-nested.md": ok(0),
    "local/sybil/tests_samples_myst-directive-no-trailing-newline.md": ok(0),
    "local/sybil/tests_samples_myst-lexing-directives.md": ok(1),  # its {code-block} python
    # Sybil's lexer stress file: its `skip: start` after a `skip: next`, bad actions (`skip: and`, `; skip: also`)
    # fail; `<!-- \n; skip: end` is a skip; a `<!--- code-block: python` in an indented block runs
    "local/sybil/tests_samples_myst-lexers.md": bad(4, 7),
}


def source(name: str) -> tuple[Path, str]:
    """The fixture's file and its tool."""
    base = name.removesuffix("+args")
    if base.startswith("local/"):
        return LOCAL / base.removeprefix("local/"), base.split("/")[1]
    return SHARED / base, base.split("/")[0]


def post_name(name: str, declared: bool) -> str:
    return (
        ("conv-" if declared else "bare-")
        + name.replace("/", "__").replace("+", "_")
        + ("" if name.endswith(".md") else ".md")
    )


def with_args(text: str) -> str:
    """`--setup FIRST --teardown LAST` as the directives that stand for them, on the first and last fences."""
    lines = text.split("\n")
    fences = [i for i, line in enumerate(lines) if line.startswith("```")]
    openings = fences[::2]
    lines.insert(openings[-1], "<!--phmdoctest-teardown-->")
    lines.insert(openings[0], "<!--phmdoctest-setup-->")
    return "\n".join(lines)


# a MyST note whose body holds code, without a convention: the code runs where it stands, as Sybil runs it
MYST_NOTE = """---
title: MyST
date: 2024-01-01
execute: true
---
````{note}
Some text.

```python
assert 1 + 1 == 3
```
````

```{toctree}
a.md
```
"""


# a typo'd skip: Sybil fails it (`Bad skip action`), and runs the block
SKIP_TYPO = "Text.\n\n<!-- skip: nxet -->\n\n```python\nx = 1\n```\n"


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """Every fixture twice, with its convention declared and without, through one `check` run."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is not here (CI has ../shared beside the clone)")
    from site_builder.check import check_site
    from site_builder.execute.options import ExecOptions

    site = make_site(tmp_path_factory.mktemp("conventions") / "site")
    for name in EXPECTED:
        path, tool = source(name)
        text = path.read_text(encoding="utf-8")
        text = with_args(text) if name.endswith("+args") else text
        for declared in (True, False):
            exec_line = f"exec: {{conventions: [{CONVENTION[tool]}]}}\n" if declared else ""
            front = f"---\ntitle: {name}\ndate: 2024-01-01\nexecute: true\n{exec_line}---\n"
            (site / "content" / "posts" / post_name(name, declared)).write_text(front + text, encoding="utf-8")
    (site / "content" / "posts" / "myst-note.md").write_text(MYST_NOTE, encoding="utf-8")
    for declared in (True, False):
        exec_line = "exec: {conventions: [sybil]}\n" if declared else ""
        front = f"---\ntitle: T\ndate: 2024-01-01\nexecute: true\n{exec_line}---\n"
        (site / "content" / "posts" / post_name("skip-typo.md", declared)).write_text(front + SKIP_TYPO)
    return check_site(site, ExecOptions(rerun=True))


@pytest.mark.parametrize("name", list(EXPECTED))
def test_declared_convention_gives_the_tools_verdict(checked, name):
    from site_builder.check import tally

    rel = "content/posts/" + post_name(name, True)
    run = checked.runs[rel]
    counted = tally(checked.parsed[rel], run)  # what `check` prints: "as phmdoctest counts: ..."
    assert counted is not None
    passed, failed, skipped = counted.passed, counted.failed, counted.skipped
    verdict = "failed" if not run.ok else "skipped" if skipped and not passed else "passed"
    want = EXPECTED[name]
    detail = f"{name}: {counted}; {run.failures}"
    assert verdict == want.verdict, detail
    if want.counts is not None:
        assert (passed, failed, skipped) == want.counts, detail
        assert (counted.xfailed, counted.xpassed) == want.xfail, detail
    own = [w.message for w in checked.warnings if w.file == rel]
    assert not own, own  # check --strict gives the tool's verdict too


@pytest.mark.parametrize(
    "name",
    [
        n
        for n, v in EXPECTED.items()
        if v.verdict == "failed"
        # here, without the setting, blocks share names
        and n != "local/pytest-codeblocks/isolated.md"
    ],
)
def test_without_the_convention_strict_check_fails(checked, name):
    """Nothing the tool fails passes silently: the post fails, or warns at a line (`check --strict` fails)."""
    rel = "content/posts/" + post_name(name, False)
    warned = [w for w in checked.warnings if w.file == rel]
    assert warned or not checked.runs[rel].ok, f"{name} passes without a word"


def test_a_trap_names_the_setting_at_the_pair_wherever_it_stands(checked):
    rel = "content/posts/" + post_name("local/phmdoctest/does_not_print.md", False)
    text = (LOCAL / "phmdoctest" / "does_not_print.md").read_text(encoding="utf-8").split("\n")
    bare = [i for i, line in enumerate(text) if line == "```"][1]  # the opening of the bare output fence
    front = 5  # the lines of the front matter written above
    found = [w for w in checked.warnings if w.file == rel]
    assert [(w.line, "exec: {conventions: [phmdoctest]}" in w.message) for w in found] == [(front + bare + 1, True)]


def test_site_yml_declares_it_for_every_post_and_myst_comments_are_not_shown(tmp_path):
    from helpers import run_cli, write_post

    site = make_site(tmp_path / "site", "title: T\nexec:\n  conventions: [sybil]\n")
    body = "% skip: next\n\n```python\nraise ValueError\n```\n\n% invisible-code-block: python\n%\n% x = 41\n\n"
    body += "Then:\n\n```python\n>>> x + 1\n42\n```\n"
    write_post(site, "m.md", "title: M\ndate: 2024-01-01\nexecute: true", body)
    proc = run_cli("check", "--source", str(site), "--strict")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "2 passed, 0 failed, 1 skipped" in out, out  # the hidden block, the doctest
    # Sybil counts the skip directive, and the block it skips (with no reason) as passing
    assert "; as Sybil counts: 4 examples, 4 passed, 0 failed, 0 skipped" in proc.stdout, out
    run_cli("build", "--source", str(site), check=True)
    page = (site / "output" / "blog" / "2024" / "m" / "index.html").read_text(encoding="utf-8")
    assert "Then:" in page and "skip: next" not in page and "x = 41" not in page and "invisible" not in page


def test_a_convention_dropped_from_site_yml_reads_the_posts_again(tmp_path):
    """The posts are read again (not taken from the last build) when site.yml's conventions change."""
    from helpers import run_cli, write_post

    site = make_site(tmp_path / "site", "title: T\nexec: {conventions: [sybil]}\n")
    write_post(
        site, "m.md", "title: M\ndate: 2024-01-01\nexecute: true", "% skip: next\n\n```python\nraise ValueError\n```\n"
    )
    run_cli("build", "--source", str(site), check=True)
    (site / "site.yml").write_text("title: T\n", encoding="utf-8")
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 1 and "ValueError" in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_a_paired_bare_fence_is_shown_as_a_verified_output(tmp_path):
    from helpers import run_cli, write_post

    site = make_site(tmp_path / "site")
    front = "title: P\ndate: 2024-01-01\nexecute: true\nexec: {conventions: [phmdoctest]}"
    body = "```python\nprint('hello' + ' world')\n```\n\nexpected output:\n\n```\nhello world\n```\n"
    write_post(site, "p.md", front, body)
    run_cli("build", "--source", str(site), "--strict", check=True)
    page = (site / "output" / "blog" / "2024" / "p" / "index.html").read_text(encoding="utf-8")
    assert '<span class="output-badge ok">' in page and page.count("hello world") == 1, page  # not printed again


def test_code_inside_a_myst_note_runs_and_fails_at_its_line(checked):
    rel = "content/posts/myst-note.md"
    run = checked.runs[rel]
    assert not run.ok and [f.line for f in run.failures] == [10], run.failures  # the assert's line in the file
    warned = [(w.line, w.message) for w in checked.warnings if w.file == rel]
    assert warned == [(14, "MyST directives with no meaning here: {toctree}")], warned


def test_a_bad_skip_action_fails_at_its_line_as_in_sybil(checked):
    from site_builder.check import tally

    rel = "content/posts/" + post_name("skip-typo.md", True)
    run = checked.runs[rel]
    found = [(f.line, f.message) for f in run.failures]
    assert len(found) == 1 and found[0][0] == 6 + 3 and "Bad skip action: nxet" in found[0][1], found
    assert str(tally(checked.parsed[rel], run)).endswith("2 examples, 1 passed, 1 failed, 0 skipped")
    bare = "content/posts/" + post_name("skip-typo.md", False)  # without the setting: a warning at its line
    warned = [(w.line, "skip: nxet" in w.message) for w in checked.warnings if w.file == bare]
    assert checked.runs[bare].ok and warned == [(5 + 3, True)], warned
