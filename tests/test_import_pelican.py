"""`site-builder import OLD NEW` from a Pelican site: pelicanconf.py read as text, never run; metadata, URLs,
liquid_tags, links, notebooks; and a subset of a real Pelican blog (jakevdp) imported, built and checked by
source_check.py and source_text.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from site_builder.importer.source import import_source
from tests.test_import_hugo import SOURCES, TOOLS, build, front, subset, write

CONF = """AUTHOR = 'Ann'
SITENAME = 'Pelican Notes'
SITEURL = 'https://notes.example'
TIMEZONE = 'Europe/Paris'
ARTICLE_URL = 'posts/{date:%Y}/{slug}/'
ARTICLE_SAVE_AS = 'posts/{date:%Y}/{slug}/index.html'
DEFAULT_METADATA = {'status': 'draft'}
STATIC_PATHS = ['images', 'code', 'notebooks', 'videos']
CODE_DIR = 'code'
NOTEBOOK_DIR = 'notebooks'
import os
EVIL = os.system('touch PWNED')
"""

NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 4,
    "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# The notebook's own title"},
        {"cell_type": "markdown", "metadata": {}, "source": "Some *notes*."},
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": 1,
            "source": "6 * 7",
            "outputs": [
                {"output_type": "execute_result", "execution_count": 1, "metadata": {}, "data": {"text/plain": "42"}}
            ],
        },
    ],
}

ARTICLES = {
    "pelicanconf.py": CONF,
    "content/images/p.png": "PNG",
    "content/code/hello.py": "print('hello')\n",
    "content/notebooks/demo.ipynb": json.dumps(NOTEBOOK),
    "content/a.md": """Title: Héllo Wörld!
Date: 2020-12-31 23:30
Tags: x, y
Category: Notes
Status: published
Summary: A first
    note.

Intro. {% img left /images/p.png 100 'A pic' %}
<!-- PELICAN_END_SUMMARY -->
See [b]({filename}/b.md), ![s]({static}/images/p.png) for $\\$$5.

{% include_code hello.py lang:python Hello %}

{% unknown thing %}

    {% if shown_as_code %}
""",
    "content/b.md": "Title: B\nDate: 2020-01-01\nSlug: bee\n\nA draft by DEFAULT_METADATA.\n\n"
    "{% video /videos/v.mp4 320 240 /videos/v.png %}\n",
    "content/videos/v.mp4": "MP4",
    "content/videos/v.png": "PNG",
    "content/nb.md": "Title: NB\nDate: 2021-02-03\nStatus: published\n\nBefore.\n\n"
    "{% notebook demo.ipynb cells[1:] %}\n\nAfter.\n",
    "content/c.rst": "C\n=\n",
}


def test_pelican_settings_metadata_urls_and_tags(tmp_path):
    old = write(tmp_path / "old", ARTICLES)
    report = import_source(old, tmp_path / "new")
    new = tmp_path / "new"
    assert not (old / "PWNED").exists() and not Path("PWNED").exists()  # read as text, never executed
    site = yaml.safe_load((new / "site.yml").read_text(encoding="utf-8"))
    assert site["title"] == "Pelican Notes" and site["url"] == "https://notes.example/" and site["author"] == "Ann"
    assert site["permalink"] == "/posts/:year/:slug/"  # ARTICLE_URL, for new posts
    meta, body = front(new / "content/posts/a.md")
    assert meta["permalink"] == "/posts/2020/hello-world/" and meta["tags"] == ["x", "y", "Notes"]
    assert meta["summary"] == "A first note." and "draft" not in meta and meta["date"].startswith("2020-12-31T23:30")
    assert "![A pic](</images/p.png>)" in body and "<!--more-->" in body
    assert "[b](/posts/2020/bee/)" in body and "![s](/images/p.png)" in body and "for \\$5" in body
    assert "```python {title=\"Hello\"}\nprint('hello')\n```" in body and "(</code/hello.py>)" in body
    assert "<!-- not converted: {% unknown thing %} -->" in body and "    {% if shown_as_code %}" in body
    assert (new / "content/images/p.png").is_file() and (new / "static/code/hello.py").is_file()
    b_meta, b_body = front(new / "content/posts/b.md")
    assert b_meta["draft"] is True and '<video src="/videos/v.mp4" controls width="320" height="240"' in b_body
    assert (new / "static/videos/v.mp4").is_file() and (new / "static/videos/v.png").is_file()  # the poster too
    nb = json.loads((new / "content/posts/nb.ipynb").read_text(encoding="utf-8"))
    sources = ["".join(c["source"]) for c in nb["cells"]]
    assert sources[0].startswith("---\ntitle: NB\n") and "permalink: /posts/2021/nb/" in sources[0]
    assert sources[1:] == ["Before.", "Some *notes*.", "6 * 7", "After."]
    problems = sorted(str(p) for p in report.problems)
    assert problems == [
        "content/a.md:15: not converted, kept as an HTML comment: {% unknown thing %} (a liquid_tags tag)",
        "content/c.rst: not read: reStructuredText is not converted",
    ]
    build(new)
    page = (new / "output/posts/2021/nb/index.html").read_text(encoding="utf-8")
    assert "Before." in page and "Some <em>notes</em>." in page and "42" in page and "After." in page
    assert not (new / "output/posts/2020/bee").exists()


JAKEVDP = [
    "content/articles/2012-09-12-dynamic-programming-in-python.md",  # {% img %} with [titles], /figures/
    "content/articles/2012-09-26-optical-illusions-in-matplotlib.md",  # img, include_code, video
    "content/articles/2017-05-26-exposing-private-dict-version.md",  # a notebook post
    "content/articles/2014-08-22-hacking-academia.md",  # MathJax's $\$$
]


@pytest.mark.skipif(not SOURCES.is_dir(), reason="../shared/corpus/sources not found")
def test_jakevdp_subset_imports_and_builds_faithfully(tmp_path):
    src = SOURCES / "jakevdp"
    also = [
        "pelicanconf.py",
        "publishconf.py",
        "content/images",
        "content/figures",
        "content/downloads/code",
        "content/downloads/notebooks/DictVersion.ipynb",
    ]
    old = subset(src, tmp_path / "old", JAKEVDP, also)
    import_source(old, tmp_path / "new")
    meta, _ = front(tmp_path / "new" / JAKEVDP[0].replace("content/articles", "content/posts/articles"))
    assert meta["tags"] == ["tutorial"]  # not "articles", the folder every article is in
    build(tmp_path / "new")
    out = tmp_path / "new" / "output"
    check = subprocess.run(
        [sys.executable, str(TOOLS / "source_check.py"), str(old), str(out), str(old / "urls.tsv")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0 and "urls 4/4" in check.stdout, check.stdout
    text = subprocess.run(
        [sys.executable, str(TOOLS / "source_text.py"), str(src / "built"), str(out), str(old / "urls.tsv")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert text.returncode == 0, text.stdout


SAVE_AS = {
    "pelicanconf.py": "SITENAME = 'S'\nARTICLE_URL = '{slug}'\nARTICLE_SAVE_AS = '{slug}.html'\n"
    "ARTICLE_LANG_SAVE_AS = '{lang}/{slug}/index.html'\nPAGE_URL = 'pages/{slug}/'\n",
    "content/a.md": "Title: A\nDate: 2020-01-01\n\nServed at a.html, linked as /a.\n",
    "content/b.md": "Title: B\nDate: 2020-01-02\nLang: fr\n\nServed at fr/b/, linked as b-fr.html.\n",
    "content/c.md": "Title: C\nDate: 2020-01-03\nSave_as: archive/c.html\n\nServed at archive/c.html.\n",
    "content/pages/about.md": "Title: About\n\nServed at pages/about.html, linked as pages/about/.\n",
}


def test_pelican_page_kept_where_save_as_wrote_it_and_its_url_redirects(tmp_path):
    """Pelican writes the page at *_SAVE_AS and links it at *_URL: the page keeps the address of the file it
    wrote; the URL, where they name different files, becomes a redirect (the site's links and readers' bookmarks
    used it)."""
    old = write(tmp_path / "old", SAVE_AS)
    import_source(old, tmp_path / "new")
    new = tmp_path / "new"
    a = front(new / "content/posts/a.md")[0]  # `/a` is a.html on the hosts that served it: no redirect needed
    assert a["permalink"] == "/a.html" and "aliases" not in a
    b = front(new / "content/posts/b.md")[0]  # ARTICLE_LANG_SAVE_AS
    assert b["permalink"] == "/fr/b/" and b["aliases"] == ["/b-fr.html"]
    c = front(new / "content/posts/c.md")[0]  # the article's own save_as
    assert c["permalink"] == "/archive/c.html" and c["aliases"] == ["/c"]
    about = front(new / "content/pages/about.md")[0]  # PAGE_SAVE_AS's default, pages/{slug}.html
    assert about["permalink"] == "/pages/about.html" and about["aliases"] == ["/pages/about/"]
    build(new)
    out = new / "output"
    assert "Served at fr/b/" in (out / "fr/b/index.html").read_text(encoding="utf-8")
    assert 'http-equiv="refresh"' in (out / "b-fr.html").read_text(encoding="utf-8")
    assert "/pages/about.html" in (out / "pages/about/index.html").read_text(encoding="utf-8")
