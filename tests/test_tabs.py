"""Tabs (`::: tab Label`, Quarto's `{.panel-tabset}`, MyST's `{tab-set}`, jekyll-tabs through `import`), as the real
CLI builds them and a real headless Chromium shows them: one panel at a time, chosen by a click or the arrow keys,
without a script; the code in a tab runs and is checked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from helpers import built_posts, chromium, make_site, post_body, run_cli, serve_folder, write_post
from test_accessibility import axe_violations, emulate
from test_import_jekyll import jekyll_site

POST = """Install it:

::: tab pip
```console
$ pip install site-builder
```
:::

::: tab conda
```console
$ conda install site-builder
```
:::

Run it:

:::: tab Python *script*
```python
print(sum(range(4)))
```

```output
6
```

::: tip
A tip in a tab.
:::
::::

:::: tab Shell
### Shell notes
Shell text.
::::

::: {.panel-tabset}
## R
R body.

### Deeper
Still R.

## Julia
Julia body.
:::

````{tab-set}
```{tab-item} Label A
:sync: a
Body A.
```
```{tab-item} Label B
Body B.
```
````

Outro.
"""
PATH = "/blog/2024/tabs/"
# each set's labels, and the text of each tab's panel
SETS = [
    (["pip", "conda"], ["$ pip install site-builder", "$ conda install site-builder"]),
    (["Python script", "Shell"], ["print ( sum ( range ( 4 ))) 6 Tip A tip in a tab.", "Shell notes # Shell text."]),
    (["R", "Julia"], ["R body. Deeper # Still R.", "Julia body."]),
    (["Label A", "Label B"], ["Body A.", "Body B."]),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Iterator[tuple[Path, str]]:
    front = "title: Tabs\ndate: 2024-05-01\nexecute: true"
    yield built_posts(tmp_path_factory.mktemp("tabs") / "site", {"tabs.md": (front, POST)})


@pytest.fixture(scope="module")
def site(built) -> Iterator[str]:
    with serve_folder(built[0] / "output") as url:
        yield url


def test_each_syntax_is_a_set_of_tabs_with_labels_and_panels(built):
    root, stderr = built
    body = post_body(root, PATH)
    found = []
    names = set()
    for tabs in body.select("div.tabs"):
        inputs = tabs.find_all("input", recursive=False)
        labels = tabs.find_all("label", recursive=False)
        panels = tabs.find_all("div", class_="tab-panel", recursive=False)
        assert [i["type"] for i in inputs] == ["radio"] * len(labels)
        assert [i.has_attr("checked") for i in inputs] == [True] + [False] * (len(inputs) - 1)
        assert [lab["for"] for lab in labels] == [i["id"] for i in inputs]
        names |= {i["name"] for i in inputs}
        assert len({i["name"] for i in inputs}) == 1
        # without the style sheet (a feed reader), each label is right above its panel
        assert [c.name for c in tabs.find_all(recursive=False)] == ["input", "label", "div"] * len(labels)
        found.append(([lab.get_text() for lab in labels], [" ".join(p.get_text(" ").split()) for p in panels]))
    assert found == SETS
    assert len(names) == len(SETS), "each set's radio buttons are a group of their own"
    assert body.select_one("label em").get_text() == "script"  # a label is Markdown
    assert body.select_one(".tab-panel .output.verified"), "the code in a tab ran and its output was checked"
    text = body.get_text()
    for raw in (":::", "{.panel", "tab-set", "tab-item", ":sync:"):
        assert raw not in text, raw
    assert [p.get_text() for p in body.find_all("p", recursive=False)] == ["Install it:", "Run it:", "Outro."]
    assert "warning:" not in stderr, stderr


def test_a_wrong_output_in_a_tab_fails_at_its_line(tmp_path):
    root = make_site(tmp_path / "site")
    body = "::: tab One\n```python\nprint(1 + 1)\n```\n\n```output\n3\n```\n:::\n\n::: tab Two\nText.\n:::\n"
    write_post(root, "bad.md", "title: Bad\ndate: 2024-05-01\nexecute: true", body)
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode != 0
    line = 7 + body.splitlines().index("3")  # the expected line, under write_post's six lines of front matter
    assert f"content/posts/bad.md:{line}: OutputMismatch" in proc.stderr, proc.stderr
    assert "-3\n    +2" in proc.stderr


def _shown(driver) -> list[list[bool]]:
    return driver.execute_script(
        "return [...document.querySelectorAll('.tabs')].map(t => "
        "[...t.querySelectorAll(':scope > .tab-panel')].map(p => p.checkVisibility()))"
    )


@pytest.mark.parametrize("width", [1280, 360])
def test_one_panel_at_a_time_chosen_by_a_click_or_the_arrow_keys(site, width):
    driver = chromium()
    try:
        emulate(driver, width)
        driver.get(site + PATH)
        assert _shown(driver) == [[True, False]] * len(SETS)
        driver.find_element("css selector", 'label[for="tab.1.2"]').click()
        assert _shown(driver)[0] == [False, True]
        assert _shown(driver)[1] == [True, False], "the other sets are as they were"
        driver.execute_script("document.getElementById('tab.2.1').focus()")
        driver.switch_to.active_element.send_keys("\ue014")  # the right arrow: the next tab
        assert _shown(driver)[1] == [False, True]
        wide = driver.execute_script("return [document.documentElement.scrollWidth, innerWidth]")
        assert wide[0] <= wide[1] <= width
    finally:
        driver.quit()


def test_a_link_to_a_heading_in_a_hidden_tab_opens_its_tab(site):
    """A section's address (a table of contents' link, a search result's, another page's) shows its tab; it was
    hidden, and the browser stayed where it was."""
    driver = chromium()
    try:
        emulate(driver, 1280)
        driver.get(site + PATH + "#shell-notes")
        seen = (
            "var r = document.getElementById('shell-notes').getBoundingClientRect(); return r.top >= 0 && r.top < 200"
        )
        assert _shown(driver)[1] == [False, True] and driver.execute_script(seen)
        driver.find_element("css selector", 'label[for="tab.2.1"]').click()
        driver.execute_script("window.scrollTo(0, 0); location.hash = ''")
        assert _shown(driver)[1] == [True, False]
        driver.execute_script("location.hash = '#shell-notes'")  # a link within the page
        assert _shown(driver)[1] == [False, True] and driver.execute_script(seen)
    finally:
        driver.quit()


@pytest.mark.parametrize("width, mode", [(1280, "light"), (360, "dark")])
def test_no_axe_violations(site, width, mode):
    assert not axe_violations(site, [PATH], width, mode)


def test_jekyll_tabs_are_imported_as_tabs(tmp_path):
    post = (
        "---\ntitle: t\n---\nIntro.\n\n{% tabs log %}\n\n{% tab log Python/C++ %}\n\n::: note\nIn a tab.\n:::\n\n"
        "{% endtab %}\n\n{% tab log Java %}\n\n```java\nint x;\n```\n\n{% endtab %}\n\n{% endtabs %}\n"
    )
    old = jekyll_site(tmp_path / "old", "title: T\n", {"_posts/2020-01-02-t.md": post})
    new = tmp_path / "new"
    proc = run_cli("import", str(old), str(new), check=True)
    assert "tab" not in proc.stderr, proc.stderr  # nothing lost, nothing to say
    run_cli("build", cwd=new, check=True)
    page = (new / "output/2020/01/02/t.html").read_text(encoding="utf-8")  # the old site's URL
    tabs = BeautifulSoup(page, "html.parser").select_one(".post-body div.tabs")
    assert [lab.get_text() for lab in tabs.select("label.tab-label")] == ["Python/C++", "Java"]
    assert tabs.select_one(".tab-panel aside.admonition-note"), "a tab holds a ::: block"
    assert tabs.select(".tab-panel")[1].select_one("code.language-java")
    assert "{%" not in page and "::::" not in page


def test_hugo_tabs_shortcodes_are_imported_as_tabs(tmp_path):
    from test_import_hugo import front, write

    body = (
        '{{< tabs items="JSON,YAML" >}}\n{{< tab >}}\n```json\n{"a": 1}\n```\n{{< /tab >}}\n'
        "{{< tab >}}\n```yaml\na: 1\n```\n{{< /tab >}}\n{{< /tabs >}}\n\nOr:\n\n"  # hextra's: named by `items`
        '{{< tabpane >}}\n{{% tab header="Python" %}}\n::: note\nIn a tab.\n:::\n{{% /tab %}}\n'
        '{{% tab header="Go" %}}\nGo text.\n{{% /tab %}}\n{{< /tabpane >}}\n'  # Docsy's
    )
    old = write(
        tmp_path / "old",
        {"hugo.toml": 'title = "S"\n', "content/posts/t.md": f"---\ntitle: T\ndate: 2020-02-02\n---\n\n{body}"},
    )
    new = tmp_path / "new"
    proc = run_cli("import", str(old), str(new), check=True)
    assert "not converted" not in proc.stderr, proc.stderr
    text = front(new / "content/posts/t.md")[1]
    assert ':::: tab JSON\n```json\n{"a": 1}\n```\n::::' in text and ":::: tab Go\nGo text.\n::::" in text
    run_cli("build", cwd=new, check=True)
    page = next((new / "output").rglob("t/index.html")).read_text(encoding="utf-8")
    sets = BeautifulSoup(page, "html.parser").select(".post-body div.tabs")
    assert [[lab.get_text() for lab in s.select("label.tab-label")] for s in sets] == [
        ["JSON", "YAML"],
        ["Python", "Go"],
    ]
    assert sets[1].select_one(".tab-panel aside.admonition-note"), "a tab holds a ::: block"
