"""util/paths.under, the string fast path of loading, against pathlib's relative_to."""

from __future__ import annotations

import itertools
from pathlib import Path

from site_builder.util.paths import relative_text, under

_NAMES = [
    "/",
    "/site",
    "/site/content",
    "/site/content/posts",
    "/site/content/posts/a.md",
    "/site/contents/a.md",
    "/site/content/../content/posts/a.md",
    "site/content/posts/a.md",
    ".",
    "/site/content/posts/sub/b.zh.md",
]


def test_under_agrees_with_pathlib_wherever_it_answers() -> None:
    answered = 0
    for path, folder in itertools.product(map(Path, _NAMES), map(Path, _NAMES)):
        text = under(path, folder)
        if text is None:
            continue
        answered += 1
        assert ".." not in path.parts
        assert str(path.relative_to(folder)) == (text or "."), (path, folder)
    assert answered >= 15


def test_a_path_under_a_similar_name_or_through_dot_dot_is_not_under() -> None:
    assert under(Path("/site/contents/a.md"), Path("/site/content")) is None
    assert under(Path("/site/content/../x/a.md"), Path("/site/content")) is None
    assert relative_text(Path("/site/content/posts/a.md"), Path("/site")) == "content/posts/a.md"
    assert relative_text(Path("/elsewhere/a.md"), Path("/site")) == "/elsewhere/a.md"
