"""Around a post and a page: each post's related posts (by shared tags), and each language's header navigation."""

from __future__ import annotations

import heapq
import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass

from site_builder.assemble.model import PostView
from site_builder.assemble.posts import Group, pick
from site_builder.config import CONFIG_NAME, SiteConfig
from site_builder.errors import SiteWarning

RELATED = 3  # posts shown under a post


def link_related(views: list[PostView], shown: dict[str, str], count: int = RELATED) -> None:
    """Each view's `related`: up to `count` posts in its language sharing a tag with it, most tags shared first,
    then newest. `views` are newest first; `shown` maps each spelling of a tag to the one its page shows."""
    by_tag: dict[tuple[str, str], list[int]] = defaultdict(list)  # (language, tag) -> positions, newest first
    tags_of = [list(dict.fromkeys(shown.get(t, t) for t in v.post.tags)) for v in views]
    for i, (view, tags) in enumerate(zip(views, tags_of, strict=True)):
        for tag in tags:
            by_tag[view.post.lang, tag].append(i)
    sets: dict[tuple[str, str], set[int]] = {}
    ranked: dict[tuple[str, tuple[str, ...]], list[int]] = {}  # posts with the same tags share one ranking
    for i, (view, tags) in enumerate(zip(views, tags_of, strict=True)):
        group = (view.post.lang, tuple(sorted(tags)))
        top = ranked.get(group)
        if top is None:  # the first `count + 1` of the group's ranking: each member's, once it is left out
            keys = [(view.post.lang, t) for t in tags]
            lists = [by_tag[k] for k in keys]
            top = ranked[group] = _related(
                -1, lists, [sets.get(k) or sets.setdefault(k, set(by_tag[k])) for k in keys], count + 1
            )
        if view.post.meta.get("related_posts") is not False:  # al-folio's `related_posts: false`: none
            view.related = [views[j] for j in top if j != i][:count]


def _related(i: int, lists: list[list[int]], sets: list[set[int]], count: int) -> list[int]:
    """The positions of post `i`'s related posts, from the positions (ascending: newest first) of each of its tags'
    posts. Set operations and lazy merges (C speed) for one or two tags, a count of every candidate beyond."""
    if not lists:
        return []
    if len(lists) == 1:  # its tag's newest other posts
        return [j for j in lists[0][: count + 1] if j != i][:count]
    common = set.intersection(*sets)
    common.discard(i)
    chosen = heapq.nsmallest(count, common)
    if len(chosen) == count:
        return chosen
    if len(lists) == 2:  # the others share one tag: the newest of either list
        rest = (j for j, _ in itertools.groupby(heapq.merge(*lists)) if j != i and j not in common)
        return chosen + list(itertools.islice(rest, count - len(chosen)))
    shared = Counter(itertools.chain.from_iterable(lists))  # counted in C
    del shared[i]
    return heapq.nsmallest(count, shared, key=lambda j: (-shared[j], j))


@dataclass(frozen=True)
class NavLink:
    """A page in the header: its title and URL in one language."""

    title: str
    url: str
    html_lang: str


def nav_links(config: SiteConfig, groups: dict[str, Group]) -> tuple[dict[str, list[NavLink]], list[SiteWarning]]:
    """Each language's header links to the pages site.yml's `nav` lists, in its order (a page in that language, else
    its version in the default language); a name that is no page is a warning."""
    navs: dict[str, list[NavLink]] = {code: [] for code in config.languages}
    warnings = []
    for name in config.nav:
        group = groups.get(name)
        if group is None:
            known = ", ".join(sorted(groups)) or "none"
            message = f"nav: no page {name!r} in {config.pages_dir}/ (pages: {known})"
            warnings.append(SiteWarning(message, CONFIG_NAME, None))
            continue
        for code in config.languages:
            view = pick(config, group, code)
            navs[code].append(NavLink(view.title, view.url, view.html_lang))
    return navs, warnings
