"""Code blocks (issue 14, item 5): the fence options `linenos`, `hl_lines` and `title`, site.yml's `highlight:`
styles, and the copy button, checked on built pages in a real headless Chromium: what the button copies (the code
alone: no line numbers, no doctest output or prompts), its name, focus and announced "Copied", axe at 1280 and
360 px in light and dark, nothing sideways on a phone, and the script only on pages with code."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import chromium, make_site, run_cli, serve_folder, write_post
from selenium.webdriver.common.keys import Keys
from test_accessibility import axe_violations, emulate

from site_builder.fences import fence_info, hl_lines
from site_builder.write.codestyle import pygments_css

CODE = (
    "import os\n"
    "\n"
    "def main(argument_with_a_long_name, another_long_argument_name, yet_another_one=None):\n"
    '    """A docstring\n'
    '    over two lines."""\n'
    "    return os.path.join(argument_with_a_long_name, another_long_argument_name)\n"
    "\n"
    'print(main("a", "b"))\n'
)
DOCTEST = ">>> 1 + 1\n2\n>>> for i in range(2):\n...     print(i)\n0\n1\n"
BAD_FENCE = '```python {hl_lines="0 x 2-9 3-1"}'
POST = (
    f'Every option:\n\n```python {{linenos hl_lines="2 4-6" title="file.py"}}\n{CODE}```\n\n'
    f"A doctest:\n\n```python\n{DOCTEST}```\n\n"
    "Plain, and long:\n\n```\n" + "a very long line of plain text " * 6 + "\n```\n\n"
    f"{BAD_FENCE}\nx = 1\ny = 2\n```\n"
)
RUN = (
    '```python {linenos hl_lines="2" title="calc.py"}\nx = 40\ny = x + 2\nprint(y)\n```\n\n```output\n42\n```\n\n'
    '```pycon {title="session"}\n>>> y - 2\n40\n```\n'
)
CONFIG = "title: Code\nurl: https://example.org\nhighlight:\n  light: friendly\n  dark: monokia\n"
PAGES = {"code": "/blog/2025/code/", "run": "/blog/2025/run/"}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[tuple[str, Path, str]]:
    """The site served: its address, its folder, the build's stderr."""
    root = make_site(tmp_path_factory.mktemp("code") / "site", CONFIG)
    write_post(root, "code.md", "title: Code\ndate: 2025-01-01", POST)
    write_post(root, "run.md", "title: Run\ndate: 2025-01-02\nexecute: true", RUN)
    write_post(root, "text.md", "title: Text\ndate: 2025-01-03", "Only words, and `inline code`.\n")
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stderr
    with serve_folder(root / "output") as url:
        yield url, root, proc.stderr


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


def page(root: Path, name: str) -> str:
    return (root / "output" / "blog" / "2025" / name / "index.html").read_text(encoding="utf-8")


def blocks(text: str) -> list[str]:
    return re.findall(r'<div class="highlight[^"]*"[^>]*>.*?</pre></div>', text, re.S)


def code_text(block: str) -> str:
    """What the block's <code> holds as text (tags dropped): what a reader selects."""
    body = re.search(r"<code[^>]*>(.*)</code>", block, re.S)
    assert body
    return html.unescape(re.sub(r"<[^>]+>", "", body[1]))


def test_fence_options_are_read_with_quoted_values():
    assert fence_info('python {linenos hl_lines="2 4-6" title="my file.py"}') == (
        "python",
        {"linenos": "", "hl_lines": "2 4-6", "title": "my file.py"},
    )
    assert fence_info("python {skip, raises=IndexError}") == ("python", {"skip": "", "raises": "IndexError"})
    assert hl_lines("2 4-6", 6) == ({2, 4, 5, 6}, [])
    assert hl_lines("1,3", 3) == ({1, 3}, [])
    lines, bad = hl_lines("0 x 2-9 3-1 2", 3)
    assert lines == {2} and len(bad) == 4


def test_linenos_hl_lines_and_title(site):
    text = page(site[1], "code")
    first, doctest, plain, bad = blocks(text)
    assert '<div class="code-bar"><span class="code-title">file.py</span></div>' in first
    assert 'class="language-python lines linenos"' in first
    rows = re.findall(r'<span class="line( hl)?">', first)
    assert len(rows) == CODE.count("\n")
    assert [n for n, hl in enumerate(rows, 1) if hl] == [2, 4, 5, 6]
    assert code_text(first) == CODE  # line numbers are CSS counters: not in the text
    assert code_text(doctest) == DOCTEST and 'class="highlight doctest"' in doctest
    # a python block of >>> examples is coloured as a session (prompts, outputs) and keeps its fence's language
    assert 'class="language-python"' in doctest and '<span class="gp">&gt;&gt;&gt; </span>' in doctest
    assert '<span class="go">' in doctest
    assert "code-bar" not in plain and "lines" not in plain  # no option: the block as before
    assert "line hl" not in bad and "lines" not in bad  # a bad hl_lines marks nothing (and warns)


def test_bad_hl_lines_and_style_names_are_warnings_at_their_lines(site):
    _, root, stderr = site
    post = (root / "content/posts/code.md").read_text().splitlines()
    line = post.index(BAD_FENCE) + 1
    where = f"warning: content/posts/code.md:{line}: hl_lines: "
    assert f"{where}'0' is outside the block's lines 1-2, not marked" in stderr
    assert f"{where}'x' is not a line number or a range such as 4-6, not marked" in stderr
    assert f"{where}'2-9' is outside the block's lines 1-2, not marked" in stderr
    assert f"{where}'3-1' runs backwards (write 1-3), not marked" in stderr
    assert "unknown code block option" not in stderr  # linenos, hl_lines and title are known
    assert (
        "warning: site.yml:5: highlight: dark: no Pygments style 'monokia', 'github-dark' used "
        "(did you mean 'monokai'?)" in stderr
    )


def test_the_highlight_key_chooses_the_styles(site, tmp_path):
    css = (site[1] / "output/css/pygments.css").read_text()
    assert css.startswith("/* code: Pygments 'friendly', and 'github-dark' in dark pages */")
    assert css == pygments_css("friendly", "github-dark") != pygments_css()  # friendly's colours, not default's
    assert ".highlight .linenos .line::before" in css  # the block styles travel with the colours
    root = make_site(tmp_path / "s", "title: S\nhighlight:\n  ligth: monokai\n  dark: monokai\n")
    write_post(root, "a.md", "title: A\ndate: 2025-01-01", "```python\nx = 1\n```\n")
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stderr
    assert "site.yml:3: unknown key 'ligth', ignored (did you mean 'light'?)" in proc.stderr
    css = (root / "output/css/pygments.css").read_text()
    assert css.startswith("/* code: Pygments 'default', and 'monokai' in dark pages */")
    (root / "site.yml").write_text("title: S\nhighlight: monokai\n")
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode != 0 and "highlight must be a mapping" in proc.stderr


def test_executed_blocks_take_the_options(site):
    text = page(site[1], "run")
    calc, session = blocks(text)
    assert "calc.py" in calc and 'class="line hl"' in calc and "linenos" in calc
    assert 'class="highlight doctest checked"' in session and '<span class="code-title">session</span>' in session
    assert '<span class="output-badge ok"></span>' in text  # the expected output block, checked (words: site.css)


def test_the_copy_script_is_only_on_pages_with_code(site):
    root = site[1]
    assert "data-copy=" in page(root, "code") and "data-copy=" in page(root, "run")
    text = page(root, "text")
    assert "data-copy=" not in text and "pygments.css" not in text


def copy_and_read(browser, index: int) -> tuple[str, str, str]:
    """Click the index-th copy button: (the clipboard's text, the button's text, the status region's text)."""
    buttons = browser.find_elements("css selector", ".code-copy")
    buttons[index].click()
    return tuple(
        browser.execute_async_script(
            "const done = arguments[arguments.length - 1], b = document.querySelectorAll('.code-copy')[arguments[0]];"
            "setTimeout(() => navigator.clipboard.readText().then("
            "t => done([t, b.textContent, document.querySelector('.copy-status').textContent]),"
            "e => done(['failed: ' + e, '', ''])), 100);",
            index,
        )
    )


def test_the_copy_button_copies_the_code_alone(site, browser):
    base = site[0]
    browser.execute_cdp_cmd(
        "Browser.grantPermissions",
        {"origin": base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
    )
    browser.get(base + PAGES["code"])
    assert copy_and_read(browser, 0) == (CODE, "Copied", "Copied")  # no line numbers
    # a doctest: its examples' code, without prompts or output (what runs when pasted)
    assert copy_and_read(browser, 1)[0] == "1 + 1\nfor i in range(2):\n    print(i)\n"
    button = browser.find_elements("css selector", ".code-copy")[2]
    assert button.get_attribute("type") == "button" and button.accessible_name == "Copy"
    status = browser.find_element("css selector", ".copy-status")
    assert status.get_attribute("role") == "status"
    browser.get(base + PAGES["code"])  # no click yet: focus by keys shows its ring
    body = browser.find_element("css selector", "body")
    for _ in range(30):
        body.send_keys(Keys.TAB)
        if browser.execute_script("return document.activeElement.className") == "code-copy":
            break
    ring = browser.execute_script(
        "const b = document.activeElement, s = getComputedStyle(b);"
        "return [b.className, b.matches(':focus-visible'), s.outlineStyle, s.outlineWidth]"
    )
    assert ring == ["code-copy", True, "solid", "2px"]
    browser.get(base + PAGES["run"])
    assert copy_and_read(browser, 0)[0] == "x = 40\ny = x + 2\nprint(y)\n"
    assert copy_and_read(browser, 1)[0] == "y - 2\n"


@pytest.mark.parametrize("width", [1280, 360])
def test_no_sideways_scroll_and_the_button_covers_no_code(site, browser, width):
    emulate(browser, width)
    try:
        for path in PAGES.values():
            browser.get(site[0] + path)
            sizes = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
            assert sizes[0] <= sizes[1], (path, sizes)
            overlaps = browser.execute_script(
                """return [...document.querySelectorAll('.code-copy')].filter(b => {
                  const r = b.getBoundingClientRect(), c = b.closest('.highlight').querySelector('pre code')
                    .getBoundingClientRect();
                  return r.bottom > c.top && r.top < c.bottom;
                }).length"""
            )
            assert overlaps == 0, path
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_javascript_on_a_code_page_stays_under_3_kb(site, browser):
    browser.get(site[0] + PAGES["code"])
    inline = browser.execute_script("return [...document.scripts].reduce((a, s) => a + s.text.length, 0)")
    assert inline <= 3 * 1024


@pytest.mark.parametrize("mode", ["light", "dark", "dark-by-button"])
@pytest.mark.parametrize("width", [1280, 360])
def test_no_axe_violations_on_code_blocks(site, width, mode):
    assert not axe_violations(site[0], list(PAGES.values()), width, mode)
