"""axe-core (installed by `make test` with npm) on the pages this builder makes, in a real headless Chromium at
1280 and 360 px: the post page with a gallery, math, a formula and an image shown as notes, lists, tags, 404."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator

import pytest
from helpers import REPO, chromium, make_site, run_cli, write_post
from PIL import Image

AXE = REPO / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
PAGES = ["/", "/blog/2024/notes/", "/blog/2024/trip/", "/blog/tag/", "/blog/tag/travel/", "/blog/", "/zh/", "/404.html"]


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
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root / "output"))
    handler.log_message = lambda *a: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("width", [1280, 360])
def test_no_serious_axe_violations(site, width):
    assert AXE.exists(), "make test installs axe-core with npm into .venv/axe"
    source = AXE.read_text(encoding="utf-8")
    driver = chromium(f"--window-size={width},900")
    found = {}
    try:
        for path in PAGES:
            driver.get(site + path)
            driver.execute_script(source)
            result = driver.execute_async_script(
                "const done = arguments[arguments.length - 1];"
                "axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa']})"
                ".then(r => done(r.violations.map(v => [v.id, v.impact, v.nodes.map(n => n.target.join(' '))])))"
                ".catch(e => done([['axe failed', String(e), []]]));"
            )
            bad = [v for v in result if v[1] in ("serious", "critical") or v[0] == "axe failed"]
            if bad:
                found[path] = bad
    finally:
        driver.quit()
    assert not found, found
