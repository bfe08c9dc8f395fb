"""`serve` keeps the last build's state warm and moves it out of the cycle collector's way after each build
(`settle_heap`: `gc.freeze`), which halves a new post's rebuild on a big site; the garbage in reference cycles
that builds leave among frozen objects is collected every SETTLE_EVERY builds, so a long session does not grow."""

from __future__ import annotations

import gc
import weakref

from helpers import make_site, write_post

from site_builder.build.incremental import rebuild
from site_builder.server import SETTLE_EVERY, settle_heap


class Leftover:
    """Stands for what a build leaves in a reference cycle once it is frozen."""

    me: Leftover


def test_builds_leave_a_frozen_heap_and_no_pile_of_cyclic_garbage(tmp_path):
    """Garbage in a cycle among frozen objects (planted here: real builds leave a few hundred objects after the
    first, none after later ones, how many varies) stays out of the collector's way for SETTLE_EVERY - 1 builds
    and is collected by the SETTLE_EVERY-th."""
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nsearch: false\n")
    for i in range(1200):  # enough pages shift with a new post that they render in forked workers
        write_post(root, f"p{i}.md", f"title: P{i}\ndate: 2024-01-{1 + i % 28:02d}\ntags: [a, t{i % 3}]", "Text.\n")
    output = tmp_path / "out"
    result = rebuild(root, output, None, None, lambda paths: None, lambda message: None)
    held = [Leftover()]
    held[0].me = held[0]
    leftover = weakref.ref(held[0])
    settle_heap(1)
    held.clear()  # now garbage, frozen
    alive = []
    try:
        for n in range(2, SETTLE_EVERY + 1):
            name = f"n{n}.md"
            write_post(root, name, f"title: N{n}\ndate: 2024-02-{n:02d}\ntags: [a]", "New.\n")
            result = rebuild(root, output, result.state, [f"content/posts/{name}"], lambda p: None, lambda m: None)
            if result.finish is not None:
                result.finish(lambda: False)
            settle_heap(n)
            assert gc.get_freeze_count() > 0  # the warm state is out of the collector's way
            alive.append(leftover() is not None)
        gc.unfreeze()
        left = gc.collect()
    finally:
        gc.unfreeze()
    assert alive == [True] * (SETTLE_EVERY - 2) + [False], alive
    assert left == 0  # nothing piled up past the SETTLE_EVERY-th build


def test_a_new_post_reloads_the_home_page_with_its_own_page_before_the_other_lists(tmp_path):
    """A new post shifts every home page's list: the first home page of each language goes out with the post's
    page, before the rest are rendered (the open home page shows it sooner)."""
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nsearch: false\nlanguages: [en, zh]\n")
    for i in range(30):
        write_post(root, f"p{i}.md", f"title: P{i}\ndate: 2024-01-{1 + i % 28:02d}\ntags: [a]", "Text.\n")
    output = tmp_path / "out"
    result = rebuild(root, output, None, None, lambda paths: None, lambda message: None)
    first: list[list[str]] = []
    write_post(root, "new.md", "title: Newest\ndate: 2024-03-01\ntags: [a]", "New.\n")
    rebuild(root, output, result.state, ["content/posts/new.md"], first.append, lambda m: None)
    assert len(first) == 1 and {"blog/2024/new/index.html", "index.html", "zh/index.html"} <= set(first[0])
    assert "blog/tag/a/index.html" not in first[0]  # the other lists come after
