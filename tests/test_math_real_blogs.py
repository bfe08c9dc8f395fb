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
