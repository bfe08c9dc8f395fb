"""The old site's comment system as site.yml's `comments:` (config/comments.py), so each post keeps its thread:

- Jekyll: al-folio's `giscus:` (a post shows comments only with `giscus_comments: true`: `opt_in`), Chirpy's and
  Minimal Mistakes' `comments: {provider: giscus|utterances|disqus, <provider>: {...}}` (Minimal Mistakes names
  the repository in `repository:`);
- Hugo: `disqusShortname` (`services.disqus.shortname`), a theme's `params.utterances` (`owner` + `repo`, or
  `repo: owner/name`) or `params.giscus`;
- Pelican: `DISQUS_SITENAME`.

A provider named but not set up (Chirpy's empty template) is none."""

from __future__ import annotations

from typing import Any

from site_builder.config.comments import OPTIONS

_HUGO_GISCUS = {
    "repoid": "repo_id",
    "categoryid": "category_id",
    "reactionsenabled": "reactions_enabled",
    "inputposition": "input_position",
    "emitmetadata": "emit_metadata",
}


def _kept(provider: str, options: dict[str, Any]) -> dict[str, Any]:
    """`{provider: options}` without empty values, or {} when an option it needs is missing."""
    given = {k: v for k, v in options.items() if v not in (None, "")}
    if any(required and not given.get(name) for name, required, _ in OPTIONS[provider]):
        return {}
    return {provider: given}


def setting(found: dict[str, Any]) -> dict[str, Any]:
    """What a reader puts in `SiteSettings.extra`: site.yml's `comments`, when the old site had a system."""
    return {"comments": found} if found else {}


def _giscus(raw: dict[str, Any], repo: Any = None) -> dict[str, Any]:
    options = {name: raw.get(name) for name, _, _ in OPTIONS["giscus"]}
    options["repo"] = options["repo"] or repo
    options["category"] = options["category"] or raw.get("category_name")  # Minimal Mistakes' name
    options["mapping"] = options["mapping"] or raw.get("discussion_term")
    return _kept("giscus", options)


def jekyll_comments(config: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """site.yml's `comments` from `_config.yml`, and whether posts opt in (al-folio's `giscus_comments: true`)."""
    alfolio = config.get("giscus")
    if isinstance(alfolio, dict):
        found = _giscus(alfolio)
        if found:
            return found, True
    theme = config.get("comments")
    if not isinstance(theme, dict):
        return {}, False
    provider = str(theme.get("provider") or "").strip().lower()
    raw = theme.get(provider)
    raw = raw if isinstance(raw, dict) else {}
    repo = config.get("repository")
    if provider == "giscus":
        return _giscus(raw, repo), False
    if provider == "utterances":
        return _kept("utterances", {"repo": raw.get("repo") or repo, "issue_term": raw.get("issue_term")}), False
    if provider == "disqus":
        return _kept("disqus", {"shortname": raw.get("shortname")}), False
    return {}, False


def hugo_comments(config: dict[str, Any]) -> dict[str, Any]:
    """site.yml's `comments` from a Hugo config (keys lower-cased, as Hugo reads them)."""
    params = _mapping(config.get("params"))
    utterances = params.get("utterances")
    if isinstance(utterances, dict):
        repo = utterances.get("repo")
        owner = utterances.get("owner")
        repo = f"{owner}/{repo}" if owner and repo and "/" not in str(repo) else repo
        term = utterances.get("issueterm") or utterances.get("issue_term")
        found = _kept("utterances", {"repo": repo, "issue_term": term})
        if found:
            return found
    if isinstance(params.get("giscus"), dict):  # Hugo lower-cases keys: `repoID` is `repoid`
        found = _giscus({_HUGO_GISCUS.get(k, k): v for k, v in params["giscus"].items()})
        if found:
            return found
    services = _mapping(config.get("services"))
    shortname = config.get("disqusshortname") or _mapping(services.get("disqus")).get("shortname")
    return _kept("disqus", {"shortname": shortname})


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def pelican_comments(sitename: Any) -> dict[str, Any]:
    """site.yml's `comments` from `DISQUS_SITENAME` (pelicanconf.py or publishconf.py): Disqus, the comments
    Pelican's themes know."""
    return _kept("disqus", {"shortname": sitename})
