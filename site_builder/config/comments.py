"""site.yml's `comments:`: a comment system under each post, the one the old site had, so its threads stay.

    comments:
      giscus: {repo: me/blog, repo_id: R_x, category: General, category_id: DIC_x}   # GitHub Discussions
      # or utterances: {repo: me/blog-comments}                                      # GitHub issues
      # or disqus: {shortname: my-blog}

One provider. Each finds a post's thread as the old site's did: giscus and utterances by the page's path
(`mapping`/`issue_term`, default `pathname`), Disqus by the page's URL. The theme loads the provider's script only
when the reader reaches the comments (post.html), or, with `consent: true`, when they click the button that says
which provider it is. A post with `comments: false` has none."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from site_builder.config.schema import COMMENTS_KEYS, unknown_keys
from site_builder.errors import SiteError, SiteWarning

_WHERE = "site.yml"
# each provider's options: (name, required, default); they become its script's data-* attributes (the importer
# reads the old site's with these names: importer/source/comments.py)
OPTIONS: dict[str, tuple[tuple[str, bool, str], ...]] = {
    "giscus": (
        ("repo", True, ""),
        ("repo_id", True, ""),
        ("category", True, ""),
        ("category_id", True, ""),
        ("mapping", False, "pathname"),
        ("strict", False, "0"),
        ("reactions_enabled", False, "1"),
        ("emit_metadata", False, "0"),
        ("input_position", False, "bottom"),
        ("lang", False, ""),
    ),
    "utterances": (("repo", True, ""), ("issue_term", False, "pathname"), ("label", False, "")),
    "disqus": (("shortname", True, ""),),
}


@dataclass(frozen=True)
class Comments:
    """The comment system: its provider ("" for none) and its options, in order (name, value)."""

    provider: str = ""
    options: tuple[tuple[str, str], ...] = ()
    consent: bool = False  # the script loads when the reader asks for it (a button), not when they reach it


def read_comments(raw: Any, lines: dict[str, int], warnings: list[SiteWarning]) -> Comments:
    """`comments: {PROVIDER: {options}}`. Not a mapping, more than one provider, or a provider without an option
    it needs is an error (no post would show its thread); an unknown key is a warning with the closest one."""
    if raw is None or raw == {}:
        return Comments()
    line = lines.get("comments")
    if not isinstance(raw, dict):
        raise SiteError(f"comments must be a mapping of one provider to its options, got {raw!r}", _WHERE, line)
    warnings += unknown_keys(raw, COMMENTS_KEYS, _WHERE, lines, prefix="comments.")
    chosen = [name for name in OPTIONS if raw.get(name) is not None]
    if len(chosen) != 1:
        said = " and ".join(chosen) if chosen else "none"
        raise SiteError(f"comments: name one provider (giscus, utterances or disqus), got {said}", _WHERE, line)
    provider = chosen[0]
    given = raw[provider]
    where = lines.get(f"comments.{provider}", line)
    if not isinstance(given, dict):
        raise SiteError(f"comments: {provider} must be a mapping of its options, got {given!r}", _WHERE, where)
    known = {name for name, _, _ in OPTIONS[provider]}
    for key in given.keys() - known:
        warnings.append(
            SiteWarning(
                f"comments: {provider}: unknown option {key!r}",
                _WHERE,
                where,
                "ignored",
                f"known: {', '.join(sorted(known))}",
            )
        )
    options = []
    for name, required, default in OPTIONS[provider]:
        value = given.get(name)
        text = default if value is None or value == "" else _text(value)
        if required and not text:
            raise SiteError(f"comments: {provider} needs {name} (its page says where to find it)", _WHERE, where)
        if text:
            options.append((name, text))
    consent = raw.get("consent")
    if consent is not None and not isinstance(consent, bool):
        raise SiteError(
            f"comments: consent must be true or false, got {consent!r}", _WHERE, lines.get("comments.consent", line)
        )
    return Comments(provider, tuple(options), consent is True)


def _text(value: Any) -> str:
    """An option's value as its script reads it: true/false as 1/0 (giscus' `strict: true`)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value).strip()
