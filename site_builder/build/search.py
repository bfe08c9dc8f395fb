"""The search index as a build makes it: in the staged tree before the swap, or again in the output when it is
missing. Light to import (Pagefind is a program): a build with nothing to do checks the index too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from site_builder.build.context import BuildContext
from site_builder.errors import StrictFailure


def search_in(ctx: BuildContext) -> Callable[[Path], object] | None:
    """What indexes a complete staged tree before it becomes the output (None with `search: false`)."""
    if not ctx.config.search:
        return None

    def index(tree: Path) -> None:
        from site_builder.write.search import index_site

        warning = index_site(tree, previous=ctx.output)  # the shards whose pages are unchanged are taken from there
        if warning is not None:
            ctx.warnings.append(warning)
            if ctx.strict:  # an error: the staged tree is dropped, the output left as it was
                raise StrictFailure(ctx.warnings)

    return index


def update_search(ctx: BuildContext, changed: bool) -> None:
    """The search index, made again when the output changed (and was not indexed before it took the output's
    place), has none, or has an interrupted one (`search: false`: removed)."""
    from site_builder.write.search import index_present, index_site, interrupted, remove_index

    if not ctx.config.search:
        remove_index(ctx.output)
    elif changed or not index_present(ctx.output) or interrupted(ctx.output):
        warning = index_site(ctx.output)
        if warning is not None:
            ctx.warnings.append(warning)
    ctx.timings.lap("search")
