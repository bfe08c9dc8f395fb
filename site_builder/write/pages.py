"""Pages: each changed page's template rendered (by both cores for a big site) and staged."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, cast

import jinja2

from site_builder.errors import SiteError
from site_builder.models import Page
from site_builder.util.hashing import content_key
from site_builder.util.parallel import fork_map, fork_start, worker_count
from site_builder.util.urls import rebase
from site_builder.write.output import OutputWriter
from site_builder.write.templates import TemplateRefs, template_digests, template_error
from site_builder.write.theme import Theme

PAGES_PER_WORKER = 150  # fewer pages than this per core: one process renders them
# control characters HTML does not allow in a document (a title's `\0` or `\x01`): no page holds one
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _no_controls(html: str) -> str:
    """A page without them (a title's `\0` reaches a page as it is: Jinja escapes markup, not controls)."""
    return _CONTROLS.sub("", html) if _CONTROLS.search(html) else html


def write_pages(
    # long: the page renderer is a closure over this build's templates and `once` memo, forked as one
    writer: OutputWriter,
    env: jinja2.Environment,
    theme: Theme,
    pages: list[Page],
    files: Sequence[tuple[str, Callable[[], tuple[Any, ...]]]] = (),
    known: TemplateRefs | None = None,
    prepare: Callable[[], None] | None = None,
) -> tuple[int, list[Any]]:
    """Render and stage the pages whose key (with their templates' digest) changed since the last build.

    `files` are other outputs (path, produce), staged by a worker of their own while the pages are rendered:
    `produce()` returns (the file's text, a result for the caller). Returns how many pages were rendered and the
    results of `files`, in order. `known`: what each template names, kept by a long-running caller. `prepare` is
    called first when anything is to be rendered (the build cache's HTML is read then).
    """
    digests = template_digests(env, theme, {page.template for page in pages}, known)
    todo = [page for page in pages if writer.needs(page.path, content_key(page.key, digests[page.template]))]
    if prepare is not None and (todo or files):
        prepare()
    try:  # compile templates once, before forking (and look each up once: a lookup stats its files)
        templates = {name: env.get_template(name) for name in {p.template for p in todo}}
    except jinja2.TemplateError as exc:
        raise template_error(exc, theme) from None

    done: dict[tuple[Any, ...], Any] = {}

    @jinja2.pass_context
    def once(ctx: jinja2.runtime.Context, macro: Any, item: object, *args: object) -> Any:
        """`macro(item, *args)`, rendered once per macro name, item and page language in this build (so `args`
        must be the same for them): a post's card is on the home pages, on each of its tags' pages and in the
        archive, the same each time; the theme's head, header, search form and footer (`macro(ui, *args)`, `args`
        being what that language shows) on every page of a language.
        The macro's arguments the call leaves out are the page's variables of those names, if it has them:
        `once(cards.card, p)` gives `card(p, ui, T)` the page's `ui` and `T` (as themes wrote it for a card
        imported with the page's context)."""
        key = (macro.name, id(item), getattr(ctx.get("ui"), "code", None))
        html = done.get(key)
        if html is None:
            unsaid = getattr(macro, "arguments", ())[1 + len(args) :]
            page = {name: ctx[name] for name in unsaid if name in ctx}
            html = done[key] = macro(item, *args, **page)  # Markup: str() would make it escaped text
        return html

    base_path = str(env.globals.get("base_path", ""))
    texts = cast("dict[str, Any]", env.globals["ui_texts"])  # make_env's _Tables: another code, the default's

    def render(page: Page) -> str:
        try:
            lang = getattr(page.context.get("ui"), "code", "")
            return rebase(templates[page.template].render(**page.context, once=once, T=texts[lang]), base_path)
        except jinja2.TemplateError as exc:
            raise template_error(exc, theme) from None
        except Exception as exc:  # a bad theme must not produce a traceback
            raise SiteError(f"template {page.template}: {type(exc).__name__}: {exc}") from None

    def render_chunk(chunk: Sequence[Page]) -> list[int]:  # rendered, then written: each code warm in the caches
        for page, data in zip(chunk, [render(page) for page in chunk], strict=True):
            writer.write(page.path, _no_controls(data))
        return [1] * len(chunk)

    def stage_files() -> list[Any]:
        results = []
        for rel, produce in files:
            data, result = produce()
            writer.write(rel, data)
            results.append(result)
        return results

    many = worker_count(len(todo), PAGES_PER_WORKER) > 1  # else forking would cost more than it saves
    # one worker for them all: a fork costs this process ~4 ms, and a site has a feed per tag
    staged = fork_start(stage_files, fork=many and bool(files))
    try:
        fork_map(render_chunk, todo, min_per_worker=PAGES_PER_WORKER)
        results: list[Any] = staged.result()
    except BaseException:
        staged.cancel()
        raise
    return len(todo), results
