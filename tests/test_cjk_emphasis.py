"""Emphasis next to Chinese, Japanese and Korean text (the "CommonMark CJK-friendly amendments"): `**` closed by
punctuation and followed by a CJK letter is bold, as kramdown and markdown-it-cjk-friendly render it; Latin text,
code and math keep CommonMark's rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import make_site, run_cli, write_post
from markdown_it import MarkdownIt

from site_builder.parse import parse

# (source, the inline tag it must make, the emphasized text): shown with raw `**` / `*` by plain CommonMark
CJK = [
    ("**코랄리안 에이다 엠케(Coraline Ada Ehmke)**가 처음", "strong", "코랄리안 에이다 엠케(Coraline Ada Ehmke)"),
    ("패키지를 발행하려면 **`npm publish`**를 실행하십시오.", "strong", None),
    ("**中文（English）**的", "strong", "中文（English）"),
    (
        "**该星号不会被识别，而是直接显示。**这是因为它没有被识别为强调符号。",
        "strong",
        "该星号不会被识别，而是直接显示。",
    ),
    ("これは**「重要」**です。", "strong", "「重要」"),
    ("これは*(English)*です。", "em", "(English)"),
    ("**このアスタリスクは強調記号として認識されず、そのまま表示されます。**この文のせいで。", "strong", None),
]
# Latin text, code and math: CommonMark's answer, untouched
LATIN = ["**foo**bar", "__foo__bar", 'a**"foo"**b', "2*3*4", 'a*"b"*c', "中_文_字", "foo*bar*"]


def inline_tags(source: str) -> list[str]:
    tokens, _ = parse(source + "\n")
    return [t.type for tok in tokens if tok.type == "inline" for t in tok.children or []]


@pytest.mark.parametrize(("source", "tag", "text"), CJK)
def test_cjk_emphasis_parses(source: str, tag: str, text: str | None) -> None:
    tokens, _ = parse(source + "\n")
    children = next(t for t in tokens if t.type == "inline").children or []
    kinds = [t.type for t in children]
    assert f"{tag}_open" in kinds and f"{tag}_close" in kinds, kinds
    assert not any("*" in t.content for t in children if t.type == "text"), "a literal * is left"
    if text is not None:
        inside = children[kinds.index(f"{tag}_open") + 1 : kinds.index(f"{tag}_close")]
        assert "".join(t.content for t in inside) == text


@pytest.mark.parametrize("source", LATIN)
def test_latin_emphasis_stays_commonmark(source: str) -> None:
    plain = MarkdownIt("commonmark").parseInline(source)[0].children or []
    assert inline_tags(source) == [t.type for t in plain]


def test_code_and_math_keep_their_stars() -> None:
    assert inline_tags("`**中文（English）**的`") == ["code_inline"]
    assert "strong_open" not in inline_tags("公式 $a*b*c$ 和 $**中文（x）**的$")


def test_built_page_shows_cjk_bold(tmp_path: Path) -> None:
    site = make_site(tmp_path / "site")
    body = "\n\n".join(source for source, _, _ in CJK) + "\n\n数学 $a*b*c$，代码 `**中文（English）**的`，2*3*4。\n"
    write_post(site, "cjk.md", "title: 中文\ndate: 2025-01-02\nlang: zh", body)
    run_cli("build", "--source", str(site), check=True)
    html = next((site / "output").rglob("cjk/index.html")).read_text(encoding="utf-8")
    article = html[html.index("<article") : html.index("</article>")]
    assert "<strong>코랄리안 에이다 엠케(Coraline Ada Ehmke)</strong>가" in article
    assert "<strong><code>npm publish</code></strong>를" in article
    assert "<strong>中文（English）</strong>的" in article
    assert "これは<strong>「重要」</strong>です。" in article
    assert "これは<em>(English)</em>です。" in article
    assert "<code>**中文（English）**的</code>" in article  # code spans keep their stars
    assert "2<em>3</em>4" in article  # as CommonMark says
    assert article.replace("<code>**中文（English）**的</code>", "").count("**") == 0
