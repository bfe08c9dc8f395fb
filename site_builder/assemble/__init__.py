"""Stage 5, assemble: posts + fragments -> the site's pages, per language (posts, lists, tags, archives).

model (what templates see) <- posts (views, translations, a post's page) + lists (home, tag, year, archive pages)
<- site (`assemble`, the whole); memo keeps what serve reuses between builds and its quick update."""

from site_builder.assemble.memo import AssembleMemo, PostChange, update_posts
from site_builder.assemble.model import (
    LanguageSite,
    PostView,
    SiteModel,
    feed_part,
    feed_path,
    page_url,
    reading_minutes,
    tag_feed_url,
    tag_url,
    year_url,
)
from site_builder.assemble.site import RESERVED, assemble

__all__ = [
    "RESERVED",
    "AssembleMemo",
    "LanguageSite",
    "PostChange",
    "PostView",
    "SiteModel",
    "assemble",
    "feed_part",
    "feed_path",
    "page_url",
    "reading_minutes",
    "tag_feed_url",
    "tag_url",
    "update_posts",
    "year_url",
]
