"""axe-core (installed by `make test` with npm) on the pages this builder makes, in a real headless Chromium at
1280 and 360 px, light and dark (the system's setting, and the theme's button): no violation at all, of any
impact, on a small site (a gallery, math, a formula and an image shown as notes, lists, tags, 404) and on every
kind of page of the bundled site."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import REPO, chromium, make_site, run_cli, serve_folder, wait_for, write_post
from PIL import Image
from test_pages_theme import PAGES as BUNDLED_PAGES
from test_pages_theme import serve_bundled_site

AXE = REPO / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
PAGES = [
    "/",
    "/blog/2024/notes/",
    "/blog/2024/trip/",
    "/blog/tag/",
    "/blog/tag/travel/",
    "/blog/",
    "/blog/2024/",
    "/zh/",
    "/404.html",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[str]:
    root = make_site(
        tmp_path_factory.mktemp("a11y") / "site",
        "title: Notes\nurl: https://example.org\nlanguages:\n  en: {}\n  zh: {}\n",
    )
    posts = root / "content/posts"
    for i, color in enumerate([(200, 40, 40), (40, 160, 60), (30, 60, 200)]):
        Image.new("RGB", (900, 600), color).save(posts / f"p{i}.jpg")
    gallery = "::: gallery\n" + "".join(f"![Photo {i}](p{i}.jpg)\n" for i in range(3)) + ":::\n"
    write_post(root, "trip.md", "title: Trip\ndate: 2024-03-01\ntags: [travel]", gallery + "\nA day out.\n")
    write_post(
        root,
        "notes.md",
        "title: Notes\ndate: 2024-02-01\ntags: [Travel, math]",
        "## Part\n\nGood $x^2$, bad $\\frac{1}{$.\n\n![A lost chart](chart.png)\n\n```python\nprint(1)\n```\n",
    )
    write_post(root, "notes.zh.md", "title: 笔记\ndate: 2024-02-01\ntags: [math]", "中文 $y$。\n")
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stderr
    with serve_folder(root / "output") as url:
        yield url


RULES = ["wcag2a", "wcag2aa", "wcag21aa", "best-practice"]
MODES = {  # the system's colour scheme, and the theme the reader chose with the header's button (None: none)
    "light": ("light", None),
    "dark": ("dark", None),
    "dark-by-button": ("light", "dark"),
    "light-by-button": ("dark", "light"),
}


@pytest.fixture(scope="module")
def bundled(bundled_build: Path) -> Iterator[str]:
    with serve_bundled_site(bundled_build) as (url, _):
        yield url


def axe_violations(base: str, paths: list[str], width: int, mode: str, ready: str = "") -> dict[str, list]:
    """Every axe violation (any impact) on each page: {path: [[rule, impact, [nodes]]]}, empty pages left out.
    `ready`: a script expression true once the page has drawn what is checked (a diagram), waited for (20 s)."""
    assert AXE.exists(), "make test installs axe-core with npm into .venv/axe"
    source = AXE.read_text(encoding="utf-8")
    scheme, chosen = MODES[mode]
    driver = chromium()
    found = {}
    try:
        emulate(driver, width, scheme)
        for path in paths:
            driver.get(base + path)
            if driver.execute_script("return localStorage.getItem('theme')") != chosen:
                driver.execute_script("localStorage.setItem('theme', arguments[0])", chosen)
                driver.get(base + path)
            if ready:
                wait_for(lambda: driver.execute_script(f"return {ready}"), timeout=20)
            result = run_axe(driver, source)
            if result:
                found[path] = result
    finally:
        driver.quit()
    return found


def emulate(driver, width: int, scheme: str | None = None) -> None:
    """The browser's window `width` px wide (900 high), and the system's colour scheme when given."""
    metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    if scheme is not None:
        feature = {"name": "prefers-color-scheme", "value": scheme}
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [feature]})


def run_axe(driver, source: str | None = None) -> list:
    """axe-core's violations on the open page, of the RULES: [[rule, impact, [nodes]]]."""
    driver.execute_script(source if source is not None else AXE.read_text(encoding="utf-8"))
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: arguments[0]})"
        ".then(r => done(r.violations.map(v => [v.id, v.impact, v.nodes.map(n => n.target.join(' '))])))"
        ".catch(e => done([['axe failed', String(e), []]]));",
        RULES,
    )


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 360])
def test_no_axe_violations(site, width, mode):
    assert not axe_violations(site, PAGES, width, mode)


@pytest.mark.parametrize(
    "width, mode",
    [
        # each scheme at each width once: by the system's setting at one width, by the button at the other
        (1280, "light"),
        (360, "dark"),
        (1280, "dark-by-button"),
        (360, "light-by-button"),
    ],
)
def test_no_axe_violations_on_any_kind_of_page_of_the_bundled_site(bundled, width, mode):
    assert not axe_violations(bundled, list(BUNDLED_PAGES.values()), width, mode)
