"""Rich values, notebook style: the value a block ends with is shown under its code, its richest safe form first.

Every test writes a tiny site into tmp_path and runs the real CLI in a subprocess.
"""

from __future__ import annotations

import base64
import html
import re
import textwrap
from pathlib import Path

import pytest
from helpers import make_site, run_cli, write_post

VALUES = """
Values, notebook style.

```python
{"a": 1}
```

```python
hidden = 987654321
hidden;  # a trailing semicolon hides it
```

```python
None
```

```python
print("only printed")
```

```python
def address_only():
    pass


address_only  # Python's default repr (the function's memory address): nothing to read, and new each run
```

```python
class Html:
    def _repr_html_(self):
        return '<b onclick="x()">hi</b><script>alert(1)</script>'


Html()
```

```python
class Svg:
    def _repr_svg_(self):
        return '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="20" height="10" onload="x()">' \\
            '<rect width="20" height="10" fill="teal"/><script>alert(2)</script></svg>'


Svg()
```

```python
from PIL import Image

Image.new("RGB", (40, 20), "orange")
```

```python
print("printed, not the value")
6 * 7
```

```output
printed, not the value
```

The end.
"""


def build(site: Path) -> None:
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"


def page(site: Path, slug: str) -> str:
    return (site / "output" / "blog" / "2024" / slug / "index.html").read_text(encoding="utf-8")


def values(body: str) -> list[tuple[str, str]]:
    """Each value box in the page: its kind (text, html, svg, png) and its HTML, up to what follows it."""
    out = []
    for part in body.split('<div class="output value value-')[1:]:
        kind, _, rest = part.partition('"')
        end = min(i for i in (rest.find('<div class="highlight'), rest.find("<p>"), len(rest)) if i >= 0)
        assert rest.startswith('><span class="value-label">Out:</span>'), rest[:200]
        out.append((kind, rest[:end]))
    return out


def values_post(site: Path, name: str, body: str) -> Path:
    return write_post(site, name, f"title: {name}\ndate: 2024-01-01\nexecute: true", textwrap.dedent(body).lstrip())


def check_values(body: str) -> None:
    shown = values(body)
    assert [kind for kind, _ in shown] == ["text", "html", "svg", "png", "text"], shown
    assert re.match(
        r"><span class=\"value-label\">Out:</span><pre[^>]*><code>\{'a': 1\}</code>", html.unescape(shown[0][1])
    )
    assert "<b>hi</b>" in shown[1][1]
    assert not re.search(r"onclick|<script|alert", shown[1][1]), shown[1][1]
    svg = re.search(
        r'<div class="value-body"><img src="data:image/svg\+xml;base64,([^"]+)" alt="[^"]*"></div>', shown[2][1]
    )
    assert svg is not None and "<svg" not in shown[2][1], shown[2][1]  # an image: its script never runs
    assert '<rect width="20" height="10" fill="teal"/>' in base64.b64decode(svg[1]).decode()
    assert '<img src="data:image/png;base64,iVBORw0KGgo' in shown[3][1] and 'width="40" height="20"' in shown[3][1]
    assert "<code>42</code>" in shown[4][1]
    assert all("987654321" not in part for _, part in shown)  # `x;` shows nothing
    assert " at 0x" not in body  # nor does a value whose only form is its memory address
    # None and a block that only prints show no value; what a block printed is not its value
    assert body.count('class="value-label"') == 5
    printed = re.search(r'<div class="output"><pre[^>]*><code>only printed', body).start()
    assert '<div class="output value' not in body[body.index('<span class="kc">None</span>') : printed]
    # with an ```output block, the value comes under it: stdout first, as in a notebook; only stdout is compared
    body = body[max(0, body.find("<article")) :]  # the head's description quotes the post's text
    verified = body.index('<div class="output verified">')
    assert body.index("printed, not the value", verified) < body.index("<code>42</code>") < body.index("The end.")


def test_a_blocks_value_is_shown_under_it_in_its_richest_safe_form(tmp_path: Path) -> None:
    site = make_site(tmp_path / "site")
    post = values_post(site, "values.md", VALUES)
    build(site)
    check_values(page(site, "values"))
    # from the cache: prose edited, so the page is rendered again, and the code does not run again
    post.write_text(post.read_text(encoding="utf-8").replace("The end.", "The very end."), encoding="utf-8")
    proc = run_cli("check", "--source", str(site))
    assert "content/posts/values.md: cached" in proc.stdout, proc.stdout
    build(site)
    body = page(site, "values")
    assert "The very end." in body
    check_values(body.replace("The very end.", "The end."))


def test_a_dataframe_becomes_a_table_without_its_style_block(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    site = make_site(tmp_path / "site")
    values_post(
        site,
        "frame.md",
        """
        ```python
        import pandas as pd

        pd.DataFrame({"city": ["Oslo", "Lima"], "people": [709_037, 10_092_000]})
        ```
        """,
    )
    build(site)
    shown = values(page(site, "frame"))
    assert [kind for kind, _ in shown] == ["html"], shown
    table = shown[0][1]
    assert '<table class="dataframe">' in table and "<th>city</th>" in table and "<td>Lima</td>" in table
    assert "<style" not in table and "vertical-align: top" not in table


def test_a_cached_run_from_before_values_still_loads() -> None:
    from site_builder.execute.results import BlockResult

    old = {"index": 0, "line": 3, "status": "passed", "stdout": "x\n", "figures": ["<svg></svg>"], "seconds": 0.1}
    assert BlockResult(**old).value is None and BlockResult(**old).figures == ["<svg></svg>"]
    fresh = BlockResult(0, 3, "passed", figures=["<svg></svg>"], value={"text/plain": "42"})
    assert fresh.value == {"text/plain": "42"} and fresh.figures == ["<svg></svg>"]
