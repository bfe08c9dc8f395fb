"""Quarto's posts: a `.qmd` file is a post, its ```` ```{python} ```` cells run as python blocks, their `#|` options
(and the front matter's `execute:` options) read as this site's fence options. Before, a `.qmd` was no post, and a
`{python}` cell was an unknown MyST directive shown as a note."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from helpers import make_site, run_cli

QMD = """---
title: "A Quarto post"
date: "2024-03-04"
date-modified: "2024-05-06"
categories: [python, quarto]
execute:
  echo: false
---

Intro.

```{python}
x = 40 + 2
print(f"the answer is {x}")
```

```{python}
#| echo: true
#| code-fold: true
#| label: doubled
y = x * 2
y
```

```{python}
#| eval: false
#| echo: true
this is not python
```

```{python}
#| output: false
#| echo: true
print("not shown")
```

```{python}
#| include: false
hidden = "setup"
```

```{python}
#| error: true
#| echo: true
1 / 0
```

```{python}
#| fig-cap: "A rising line"
#| fig-alt: "A straight line from 0 to 3"
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
plt.plot([0, 1, 2, 3])
```

```{r}
summary(cars)
```
"""


def test_a_qmd_post_runs_its_cells_as_quarto_shows_them(tmp_path):
    root = make_site(tmp_path / "site", "title: Q\nurl: https://example.org\nsearch: false\n")
    post = root / "content/posts/answer/index.qmd"
    post.parent.mkdir(parents=True)
    post.write_text(QMD, encoding="utf-8")
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = QMD.splitlines()
    fold = lines.index("#| label: doubled") + 1
    r_cell = lines.index("```{r}") + 1
    assert re.search(
        rf"^warning: content/posts/answer/index\.qmd:{fold}: Quarto cell options with no meaning here: "
        r"label: doubled, ignored",
        proc.stderr,
        re.M,
    ), proc.stderr
    assert f"content/posts/answer/index.qmd:{r_cell}: a ```{{r}} cell is shown, not run" in proc.stderr
    assert "6 blocks passed, 0 failed" in proc.stdout, proc.stdout
    page = BeautifulSoup((root / "output/blog/2024/answer/index.html").read_text(encoding="utf-8"), "html.parser")
    body = page.select_one(".post-body")
    codes = [pre.get_text() for pre in body.select(".highlight pre")]
    assert "x = 40 + 2" not in body.get_text() and "the answer is 42" in body.get_text()  # echo: false (the post's)
    assert codes[0].startswith("y = x * 2") and "84" in body.get_text()  # echo: true, #| lines out of the code
    fold = body.select_one("details.code-fold")  # code-fold: true: the code folded, its output below
    assert fold is not None and fold.find("summary").get_text() == "Code" and not fold.has_attr("open")
    assert fold.select_one("pre").get_text().startswith("y = x * 2") and "84" not in fold.get_text()
    assert codes[1] == "this is not python\n"  # eval: false: shown, not run
    assert codes[2].startswith('print("not shown")') and "not shown\n" not in [
        o.get_text() for o in body.select(".output")
    ]
    assert "hidden" not in body.get_text()  # include: false
    assert "ZeroDivisionError: division by zero" in body.get_text()  # error: true
    assert codes[-1] == "summary(cars)\n" and "#|" not in body.get_text()
    figure = body.select_one("figure.exec-figure")
    assert figure.find("figcaption").get_text() == "A rising line"
    assert figure.find("img")["alt"] == "A straight line from 0 to 3"
    assert figure.parent["class"] == ["exec-outputs"]  # its code hidden: a box of its own, not the cell's above
    assert "2024-05-06" in str(page.select_one('meta[property="article:modified_time"]'))  # date-modified
    tags = [a.get_text().strip() for a in page.select("a[rel=tag]")] or page.get_text()
    assert "quarto" in str(tags)


def test_a_failing_cell_is_reported_at_its_line_and_enabled_false_runs_nothing(tmp_path):
    root = make_site(tmp_path / "site", "title: Q\nurl: https://example.org\nsearch: false\n")
    post = root / "content/posts/bad.qmd"
    post.write_text(
        "---\ntitle: Bad\ndate: 2024-03-05\nexecute: {freeze: auto}\n---\n\n```{python}\n#| label: a\n#| echo: true\n"
        "assert 1 == 2, 'one is not two'\n```\n",
        encoding="utf-8",
    )
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 1
    assert "content/posts/bad.qmd:10: AssertionError: one is not two" in proc.stderr, proc.stderr
    post.write_text(post.read_text(encoding="utf-8").replace("{freeze: auto}", "{enabled: false}"), encoding="utf-8")
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0 and "ran code" not in proc.stdout, proc.stdout + proc.stderr
