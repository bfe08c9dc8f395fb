"""Every key of `site.yml` and of a post's front matter, declared once: name, type, default, one line of doc.

Validation, the did-you-mean warnings and the README's tables all come from here:
`python -m site_builder.config.schema` prints the tables (tests/test_config_schema.py holds the README to them).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import date
from typing import Any

from site_builder.errors import SiteWarning


@dataclass(frozen=True)
class Key:
    """One setting: its name, the Python types it accepts, its default (None: no default) and what it does."""

    name: str
    types: tuple[type, ...]
    default: Any
    doc: str

    @property
    def type_name(self) -> str:
        return " or ".join(_TYPE_NAMES[t] for t in self.types)


_TYPE_NAMES = {str: "text", int: "integer", bool: "true/false", list: "list", dict: "mapping", date: "date"}

SITE_KEYS = (
    Key("title", (str,), "My Blog", "site title (the feed's title too)"),
    Key("subtitle", (str,), "", "tagline of the home page, the feed's subtitle"),
    Key("url", (str,), "", "absolute base URL: feed, sitemap and canonical links"),
    Key("author", (str, dict), "", "the feed's author (a post's `author` wins); a mapping gives its `name`"),
    Key("language", (str,), "en", "the default language of posts, served at /"),
    Key("theme", (str,), "default", "`themes/NAME/`; templates it lacks come from the default theme"),
    Key("posts_per_page", (int,), 10, "posts on each home page"),
    Key(
        "permalink",
        (str,),
        "/blog/:year/:slug/",
        "URL of a post without `permalink` (:year :month :day :slug :lang :categories)",
    ),
    Key("posts_dir", (str,), "content/posts", "folder of the posts, relative to site.yml"),
    Key("feed_path", (str,), "feed.xml", "where the Atom feed is written"),
    Key("feed_id", (str,), "", "the feed's `<id>` (default: its absolute URL)"),
    Key("feed_limit", (int,), 10, "newest N posts in each feed (as jekyll-feed); 0 = all"),
    Key(
        "future",
        (bool,),
        False,
        "publish posts dated in the future, as `build --future` does (Hugo's `buildFuture`, Jekyll's `future`)",
    ),
    Key("search", (bool,), True, "a Pagefind search index of the posts (Chinese and Japanese words segmented)"),
    Key("languages", (dict, list), None, "the site's languages: code -> settings below (default: `language` alone)"),
    Key("math_macros", (dict,), {}, "TeX macros of every formula, as MathJax's: `E: \\mathbb{E}`, `vec: \\mathbf{#1}`"),
    Key(
        "exec",
        (dict,),
        {},
        "every executing post's `env` (names), `network: false`, `preload` (modules), `isolation: strict`, "
        "`conventions` (other tools' Markdown, as in front matter)",
    ),
    Key("pages_dir", (str,), "content/pages", "folder of the pages (`about.md` -> /about/), relative to site.yml"),
    Key("nav", (list,), [], "pages in the header, in order: their file names without `.md` (`[about, projects]`)"),
    Key("social", (list, dict), [], "profile links (`name: url`, http(s) or mailto): `rel=me` and the footer"),
    Key("favicon", (str,), "", "the icon: a site path (`/favicon.png`, from the theme's static/) or an address"),
    Key("highlight", (dict,), {}, "the Pygments styles of code: `light:` and `dark:` (below)"),
    Key("comments", (dict,), {}, "a comment system under each post: `giscus:`, `utterances:` or `disqus:` (below)"),
    Key("static_dir", (str,), "static", "folder copied as it is to the output's root (a name a page has: an error)"),
)

HIGHLIGHT_KEYS = (
    Key("light", (str,), "default", "Pygments style of code in light pages (`pygmentize -L styles` lists them)"),
    Key("dark", (str,), "github-dark", "Pygments style of code in dark pages"),
)

COMMENTS_KEYS = (
    Key(
        "giscus",
        (dict,),
        None,
        "GitHub Discussions: `repo`, `repo_id`, `category`, `category_id` (giscus.app gives them); `mapping` "
        "(`pathname`), `strict`, `reactions_enabled`, `input_position`, `lang`",
    ),
    Key("utterances", (dict,), None, "GitHub issues: `repo`; `issue_term` (`pathname`), `label`"),
    Key("disqus", (dict,), None, "Disqus: `shortname` (a thread is found by the page's URL)"),
    Key(
        "consent",
        (bool,),
        False,
        'true: the provider\'s script loads when the reader clicks "Load comments", not when they reach the '
        "comments (nothing is asked of the provider before)",
    ),
)

LANGUAGE_KEYS = (
    Key("name", (str,), "the code", "shown in the language switch (en English, zh 中文, ...)"),
    Key("prefix", (str,), "/CODE/", "where its pages live (the default language is always at /)"),
    Key("date_format", (str,), "%b %-d, %Y", 'strftime format of dates (zh, ja: "%Y年%-m月%-d日")'),
    Key("short_date_format", (str,), "%b %-d", "strftime format in archive lists"),
    Key("html_lang", (str,), "the code", "the `lang` attribute of its pages (zh: zh-Hans)"),
    Key("title", (str,), "", "site title on this language's pages and feed"),
    Key("subtitle", (str,), "", "tagline on this language's pages and feed"),
)

FRONT_MATTER_KEYS = (
    Key("title", (str,), None, "required"),
    Key("date", (date, str), None, "required (a page may go without): YYYY-MM-DD or ISO 8601 (no zone = UTC)"),
    Key("updated", (date, str), "date", "last update (feed `<updated>`)"),
    Key("tags", (list, str), [], "a list, or words separated by commas or spaces"),
    Key("lang", (str,), "site language", "the post's language (`x.zh.md` says zh too)"),
    Key(
        "slug",
        (str,),
        "the file name",
        "the `:slug` of the permalink pattern (a bundle's `index.md`: its folder's name)",
    ),
    Key("permalink", (str,), "site.yml `permalink`", "the post's URL"),
    Key("id", (str,), "its absolute URL", "Atom entry id; imported posts keep the original one"),
    Key(
        "summary",
        (str,),
        "",
        "shown in lists, link previews and the feed; without it, lists and previews show the start of the text "
        "(or what comes before a `<!--more-->` line)",
    ),
    Key(
        "author",
        (str, list, dict),
        "site.yml `author`",
        "the post's author in the feed: a name, or a list of them (Quarto's `{name: ...}` entries too)",
    ),
    Key("translation_key", (str,), "the path without `.LANG`", "posts sharing it are one post in several languages"),
    Key("draft", (bool,), False, "true: not built, not in feeds"),
    Key(
        "execute",
        (bool, dict),
        False,
        "true: the post's Python blocks run at every build and `check` (Quarto's options, `{echo: false}`, too: "
        "each cell's defaults)",
    ),
    Key(
        "exec",
        (dict,),
        {},
        "the run's limits, packages, files, network, isolation and `conventions`: other tools' Markdown read as they "
        "read it (`[phmdoctest, sybil, pytest-codeblocks]`; see Executable posts)",
    ),
    Key("image", (str,), "the post's first image", "the picture of its link previews: an address or a site path"),
    Key("toc", (bool,), True, "false: no table of contents (a post with 3 or more h2/h3 headings has one)"),
    Key("aliases", (list, str), [], "old addresses of the post (`/old/`, `/x.html`): each a page sending readers here"),
    Key("redirect_from", (list, str), [], "the same as `aliases` (jekyll-redirect-from)"),
    Key("published", (bool,), True, "false: the same as `draft: true` (Jekyll)"),
    Key("hidden", (bool,), False, "true: built at its address, left out of lists, tags and feeds (al-folio)"),
    Key(
        "status",
        (str,),
        "",
        "`draft` (WordPress's `pending`, `private`, `trash` too): as `draft: true`; `hidden`: as `hidden: true`; "
        "`published`: built (Pelican, WordPress)",
    ),
    Key("description", (str,), "", "the `summary` when there is none (Jekyll, Hugo)"),
    Key("excerpt", (str,), "", "the `summary` when there is none (Jekyll)"),
    Key("lastmod", (date, str), "", "the `updated` date when there is none (Hugo)"),
    Key("last_modified_at", (date, str), "", "the `updated` date when there is none (Jekyll)"),
    Key("modified", (date, str), "", "the `updated` date when there is none (Pelican)"),
    Key("date-modified", (date, str), "", "the `updated` date when there is none (Quarto)"),
    Key("categories", (list, str), [], "added to `tags`, unless the permalink pattern uses `:categories` (Jekyll)"),
    Key("category", (str,), "", "the same as `categories` (Pelican, Jekyll)"),
    Key("series", (list, str), [], "added to `tags`: the series' tag page lists its posts (Hugo, PaperMod)"),
    Key("cover", (str, dict), "", "the `image` when there is none (Hugo: `cover.image`)"),
    Key("thumbnail", (str,), "", "the `image` when there is none (al-folio)"),
    Key("og_image", (str,), "", "the `image` when there is none"),
    Key("comments", (bool,), True, "false: no comments under this post (when site.yml has `comments:`)"),
    Key("giscus_comments", (bool,), True, "false: the same as `comments: false` (al-folio)"),
    Key("disqus_comments", (bool,), True, "false: the same as `comments: false` (al-folio)"),
    Key("related_posts", (bool,), True, "false: no related posts under this post (al-folio)"),
)

# keys other generators write (Jekyll, Hugo, al-folio, Pelican, WordPress exports): accepted without a warning,
# and not used, so that a moved blog builds quietly; the configuration reference lists them
FOREIGN_FRONT_MATTER = frozenset(
    [
        "layout",
        "featured",
        "keywords",
        "math",
        "giscus",
        "weight",
        "type",
    ]
)


def _suggest(key: str, known: list[str]) -> str:
    import difflib  # for a key nobody declared: a build of a site without one does not load it

    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else ""


def unknown_keys(
    data: dict[str, Any], keys: tuple[Key, ...], where: str, lines: dict[str, int], prefix: str = ""
) -> list[SiteWarning]:
    """A warning at its line for each key of `data` that `keys` does not declare, with the closest known key."""
    known = [k.name for k in keys]
    foreign = FOREIGN_FRONT_MATTER if keys is FRONT_MATTER_KEYS else frozenset()
    out = []
    for key in data:
        name = str(key)
        if name in known or name in foreign:
            continue
        line = lines.get(prefix + name)
        out.append(SiteWarning(f"unknown key {name!r}", where, line, "ignored", _suggest(name, known)))
    return out


def _default(key: Key) -> str:
    if key.default is None:
        return ""
    if isinstance(key.default, bool):
        return str(key.default).lower()
    if isinstance(key.default, (list, dict)):
        return "none"
    return f"`{key.default}`" if key.default != "" else '`""`'


def table(keys: tuple[Key, ...]) -> str:
    """A Markdown table of `keys`: key, type, default, meaning."""
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for key in keys:
        rows.append(f"| `{key.name}` | {key.type_name} | {_default(key)} | {key.doc} |")
    return "\n".join(rows)


TABLES = {
    "site.yml": SITE_KEYS,
    "languages": LANGUAGE_KEYS,
    "highlight": HIGHLIGHT_KEYS,
    "comments": COMMENTS_KEYS,
    "front matter": FRONT_MATTER_KEYS,
}


def readme_tables() -> str:
    """The configuration reference (docs/reference/configuration.md, between its `<!-- keys -->` markers)."""
    parts = []
    for title, keys in TABLES.items():
        parts += [f"**{title}**", "", table(keys), ""]
    foreign = ", ".join(f"`{k}`" for k in sorted(FOREIGN_FRONT_MATTER))
    parts.append(f"Accepted in front matter without a warning, and not used (other generators write them): {foreign}.")
    return "\n".join(parts)


if __name__ == "__main__":
    sys.stdout.write(readme_tables() + "\n")
