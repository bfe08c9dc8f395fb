"""The math real blogs write and math-core alone refuses: each renders to MathML, with no script in the page."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from helpers import make_site, run_cli, write_post

CASES = {
    # id: (Markdown, what the MathML must hold)
    "dollar-inside-text": (
        "$$\\begin{aligned} L &= \\sum_i \\ell_i \\text{(for $p_\\theta(x,y)$)} \\end{aligned}$$",
        ["θ", "(for"],
    ),
    "widetilde": ("Smoothed $\\widetilde{x}_t$ here.", ["~"]),
    "label-with-underscore": (
        "$$\\begin{equation} E = mc^2 \\label{eq:energy_mass} \\end{equation}$$\n\nSee $\\eqref{eq:energy_mass}$.",
        ["(1)"],
    ),
    "ref": (
        "$$\\begin{equation} a = b \\label{one} \\end{equation}$$\n\nEquation $\\ref{one}$ holds.",
        ["(1)"],
    ),
    # lilianweng.github.io writes these
    "substack": ("$$\\sum_{\\substack{i=1 \\\\ j \\neq i}} x_{ij}$$", ["∑", "≠"]),
    "underscore-and-ampersand-in-text": ("$$\\mathcal{L}_\\text{style_fwd} + \\text{p & q}$$", ["style_fwd", "&"]),
    "size-switch": ("$$\\begin{aligned} a &= b & \\small{\\text{; context}} \\end{aligned}$$", ["; context"]),
    "two-inline-formulas-on-a-line-starting-with-dollars": (
        "$$P_6$$ is made by a conv on top of $$C_5$$.",
        ["P", "6", "C", "5"],
    ),
    # MathJax reads these and math-core does not (Jekyll and Hugo blogs written for MathJax)
    "mathjax-only-commands": (
        "$$\\begin{eqnarray}a &=& b \\label{e1} \\\\ c &\\le& d\\end{eqnarray}$$\n\n"
        "$$\\begin{split} x &= y \\mbox{ if } z \\thicksim w \\end{split}$$ and $\\TeX$, see $\\eqref{e1}$ at $x_1^′$.",
        ["(1)", "(2)", "if", "∼", "TeX", "′"],
    ),
    # gwgundersen.github.io writes these: a `$` inside braces does not end the formula
    "dollar-inside-braces-inline": ("Let $F = \\{f : \\text{$f$ is smooth}\\}$ be the class.", ["is smooth", "f"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_formula_renders_to_mathml_without_a_warning(tmp_path, case):
    body, wanted = CASES[case]
    root = make_site(tmp_path / "site")
    write_post(root, "m.md", "title: M\ndate: 2024-01-01", body + "\n")
    proc = run_cli("build", "--source", str(root), "--strict")
    assert proc.returncode == 0, proc.stderr
    page = BeautifulSoup((root / "output/blog/2024/m/index.html").read_text(), "html.parser")
    article = page.find("article") or page
    assert article.select(".math-error") == []
    maths = article.find_all("math")
    assert maths, article
    shown = " ".join(m.get_text() for m in maths)
    for text in wanted:
        assert text in shown, (text, shown)
    assert page.find("script", src=lambda s: s and "mathjax" in s.lower()) is None


MACROS = """title: T
url: https://example.org
math_macros:
  R: "\\\\mathbb{R}"
  mat: ["{\\\\mathbf{#1}}", 1]   # MathJax's [TeX, arguments] form
"""


def test_math_macros_from_site_yml_render_every_formula(tmp_path):
    root = make_site(tmp_path / "site", MACROS)
    write_post(root, "m.md", "title: M\ndate: 2024-01-01", "Let $x \\in \\R^n$ and $\\mat{X} x = 0$.\n")
    proc = run_cli("build", "--source", str(root), "--strict")
    assert proc.returncode == 0, proc.stderr
    page = BeautifulSoup((root / "output/blog/2024/m/index.html").read_text(), "html.parser")
    shown = " ".join(m.get_text() for m in page.find_all("math"))
    assert "ℝ" in shown and "𝐗" in shown, shown
    assert page.select(".math-error") == []
    # a changed macro renders the unchanged post again
    (root / "site.yml").write_text(MACROS.replace("mathbb{R}", "mathcal{R}"), encoding="utf-8")
    assert run_cli("build", "--source", str(root)).returncode == 0
    shown = " ".join(
        m.get_text()
        for m in BeautifulSoup((root / "output/blog/2024/m/index.html").read_text(), "html.parser").find_all("math")
    )
    assert "ℝ" not in shown and "ℛ" in shown, shown


def test_a_macro_math_core_cannot_read_is_an_error_at_its_line(tmp_path):
    config = 'title: T\nmath_macros:\n  R: "\\\\mathbb{R}"\n  coloneqq: "{\\\\mathrel{\\\\vcenter{:}}=}"\n'
    root = make_site(tmp_path / "site", config)
    write_post(root, "m.md", "title: M\ndate: 2024-01-01", "$x$\n")
    proc = run_cli("build", "--source", str(root))
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 1 and lines[-1] == "error: stopped with 1 error", proc.stderr
    assert lines[0].startswith("error: site.yml:4: math_macros: coloneqq: math-core cannot read"), lines
    assert "vcenter" in lines[0] and "Traceback" not in proc.stderr
    assert not (root / "output").exists()
