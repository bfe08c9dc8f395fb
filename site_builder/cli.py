"""The `site-builder` command line: a thin layer over the pipeline's stages."""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

from site_builder import __version__
from site_builder.errors import ExecutionFailed, SiteError


def _site_root(source: str, command: str) -> Path:
    """The --source directory; it must exist and look like a site, so a typo does not create a new tree."""
    root = Path(source)
    if not root.is_dir():
        raise SiteError(f"source directory {source} does not exist (pass the site root with --source)")
    if command == "build" and not (root / "site.yml").exists() and not (root / "content").is_dir():
        raise SiteError(f"{source} has neither site.yml nor content/: is it a site root? (pass it with --source)")
    return root


def cmd_build(args) -> int:
    from site_builder.build import build_site
    from site_builder.execute import failure_lines

    _site_root(args.source, "build")
    # One build, then exit: reference counting frees what the build drops, and the cycle collector would only
    # walk the big heap of loaded posts and fragments again and again (a fifth of a warm rebuild's time).
    gc.disable()
    result = build_site(
        Path(args.source), Path(args.output), log=_err, exec_options=_exec_options(args), keep_going=args.keep_going
    )
    for warning in sorted(result.warnings, key=lambda w: (w.file or "", w.line or 0, w.message)):
        _err(f"warning: {warning}")
    for run in result.runs.values():
        if not run.ok:
            for line in failure_lines(run):
                _err(line)
    if result.runs:
        blocks = sum(r.count("passed") for r in result.runs.values())
        failed = sum(len(r.failures) for r in result.runs.values())
        print(
            f"ran code in {len(result.runs)} posts: {blocks} blocks passed, {failed} failed"
            + (" (shown in the pages: --keep-going)" if failed else "")
        )
    written = result.files_changed - result.files_removed
    print(
        f"built {_count(result.posts, 'post')} into {result.output} in {result.seconds:.2f}s: "
        f"{result.fragments_rendered} rendered, {_count(result.pages_rendered, 'page')} rendered, "
        f"{_count(written, 'file')} written, {result.files_removed} removed ({result.pages} files in all)"
        + (f", {_count(result.images, 'image')} processed" if result.images else "")
    )
    if args.verbose:
        print("  " + ", ".join(f"{name} {secs:.2f}s" for name, secs in result.timings.items()))
    return 1 if any(not run.ok for run in result.runs.values()) else 0  # --keep-going wrote the site, yet it failed


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _exec_options(args):
    from site_builder.execute import ExecOptions

    return ExecOptions(rerun=args.rerun, executor=args.executor, ray_address=args.ray_address, progress=_err)


def cmd_check(args) -> int:
    from site_builder.check import check_site, write_json
    from site_builder.execute import failure_lines

    _site_root(args.source, "build")
    report = check_site(Path(args.source), _exec_options(args))
    for run in sorted(report.runs.values(), key=lambda r: r.rel):
        how = "cached" if run.cached else f"ran ({run.reason})"
        counts = f"{run.count('passed')} passed, {len(run.failures)} failed, {run.count('skipped')} skipped"
        print(f"{run.rel}: {how}: {counts}" + ("" if run.cached else f" in {run.seconds:.2f}s"))
        for line in failure_lines(run):
            print(line)
    if args.json:
        write_json(report, Path(args.json))
    print(f"{report.total('passed')} passed, {report.failed} failed")
    return 1 if report.failed else 0


def cmd_serve(args) -> int:
    from site_builder.server import serve

    root = _site_root(args.source, "build")
    try:
        return serve(root, host=args.host, port=args.port, open_browser=args.open, log=lambda m: print(m, flush=True))
    except OSError as exc:
        raise SiteError(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}") from None


def cmd_import(args) -> int:
    from site_builder.importer import import_feed

    report = import_feed(Path(args.feed), Path(args.into), force=args.force, log=print)
    for warning in report.warnings:
        _err(f"warning: {warning}")
    print(
        f"imported {len(report.written)} posts into {args.into}"
        + (f", skipped {len(report.skipped)} existing (use --force to overwrite)" if report.skipped else "")
    )
    return 0


def cmd_init(args) -> int:
    from site_builder.init import init_site, parse_languages

    target = Path(args.directory)
    written = init_site(target, parse_languages(args.lang), args.title)
    for path in written:
        print(f"created {path}")
    where = "" if target.resolve() == Path.cwd() else f"cd {args.directory} && "
    print(f"next: {where}site-builder serve    (or: site-builder build, site-builder check)")
    return 0


def cmd_new(args) -> int:
    from site_builder.config import load_config
    from site_builder.load import dump_post, load_post, slugify, split_lang_suffix

    config = load_config(_site_root(args.source, "new").resolve())
    if not args.title.strip():
        raise SiteError("the title is empty")
    if args.title.strip().endswith(".md"):  # a path, as `hugo new posts/x.md`: the title comes from its name
        return _new_at_path(args, config)
    lang = args.lang or config.language
    now = datetime.now(timezone.utc).astimezone().replace(microsecond=0)
    meta = {"title": args.title, "date": now.isoformat(), "tags": [], "lang": lang}
    if args.translation_of:  # the same post in another language: hello.md -> hello.zh.md, same date and tags
        original_path = Path(args.translation_of)
        if not original_path.is_file():
            raise SiteError(f"--translation-of: no such post {args.translation_of}")
        original = load_post(original_path.resolve(), config)
        if not args.lang or args.lang == original.lang:
            raise SiteError(
                f"--translation-of needs --lang with another language than the original's ({original.lang})"
            )
        if lang not in config.languages:
            raise SiteError(
                f"language {lang!r} is not in site.yml 'languages' ({', '.join(config.languages)})", "site.yml"
            )
        stem = split_lang_suffix(original_path.stem, config)[0]
        path = original_path.resolve().parent / f"{stem}.{lang}.md"
        meta.update(date=original.date.isoformat(), tags=list(original.tags))
        if original.meta.get("translation_key"):
            meta["translation_key"] = original.meta["translation_key"]
    else:
        slug = args.slug if args.slug is not None else slugify(args.title)
        if not slug or slug.startswith(".") or any(c in slug for c in "/\\\0"):
            raise SiteError(f"--slug {slug!r} must be a plain file name (no '/', not starting with '.')")
        path = config.root / config.posts_dir / f"{slug}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x", encoding="utf-8") as fh:  # never overwrite a post, even one made a moment ago
            fh.write(dump_post(meta, "Write here.\n"))
    except FileExistsError:
        raise SiteError(
            f"this post already has a {lang!r} version"
            if args.translation_of
            else "a post with this name already exists; choose another --slug",
            path,
        ) from None
    print(f"created {os.path.relpath(path)}")
    return 0


def _new_at_path(args, config) -> int:
    """`new content/posts/my-post.md` (or `my-post.zh.md`): that file, titled from its name."""
    from site_builder.load import dump_post, split_lang_suffix

    given = Path(args.title.strip())
    posts = (config.root / config.posts_dir).resolve()
    path = (posts / given.name) if given.parent == Path(".") else (Path.cwd() / given).resolve()
    if posts not in path.parents:
        raise SiteError(f"{args.title}: a new post goes under {config.posts_dir}/ (where the build looks for posts)")
    stem, suffix_lang = split_lang_suffix(path.stem, config)
    lang = args.lang or suffix_lang or config.language
    title = stem.replace("-", " ").replace("_", " ").strip().capitalize() or "Untitled"
    now = datetime.now(timezone.utc).astimezone().replace(microsecond=0)
    meta = {"title": title, "date": now.isoformat(), "tags": [], "lang": lang}
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x", encoding="utf-8") as fh:  # never overwrite a post
            fh.write(dump_post(meta, "Write here.\n"))
    except FileExistsError:
        raise SiteError("a post with this name already exists", path) from None
    print(f"created {os.path.relpath(path)}")
    return 0


def _shown(exc: SiteError, args) -> str:
    """The error as `file:line: message`, with the file relative to the site root (or the current directory)."""
    if exc.file is not None and Path(exc.file).is_absolute():
        path = Path(exc.file)
        for base in (Path(getattr(args, "source", ".")), Path.cwd()):
            for b in (base.absolute(), base.resolve()):
                try:
                    return str(dataclasses.replace(exc, file=path.relative_to(b)))
                except ValueError:
                    pass
    return str(exc)


def _err(msg: str) -> None:
    print(msg, file=sys.stderr)


def _exec_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rerun", action="store_true", help="run every executing post, ignoring cached results")
    p.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="where posts run: local processes (default) or Ray tasks",
    )
    p.add_argument(
        "--ray-address", metavar="ADDR", help="Ray cluster to use with --executor ray (default: start a local one)"
    )


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="site-builder", description="Build a static blog whose posts' code keeps running."
    )
    parser.add_argument("--version", action="version", version=f"site-builder {__version__}")
    parser.add_argument("--debug", action="store_true", help="show a traceback on internal errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "build",
        help="build the site into an output directory",
        description="Build the site from site.yml, content/ and the theme into --output.",
    )
    p.add_argument("--source", default=".", help="site root holding site.yml and content/ (default: .)")
    p.add_argument("--output", default="output", help="output directory, relative to --source (default: output)")
    p.add_argument("-v", "--verbose", action="store_true", help="print the time each stage took")
    p.add_argument(
        "--keep-going", action="store_true", help="on failing code, show the error in the page and finish the build"
    )
    _exec_arguments(p)
    p.set_defaults(func=cmd_build)

    p = sub.add_parser(
        "check",
        help="run the code in posts and verify its output, without building",
        description="Run every `execute: true` post's code blocks; exit 1 if any fails. "
        "Ends with the line 'N passed, M failed' (blocks).",
    )
    p.add_argument("--source", default=".", help="site root (default: .)")
    p.add_argument("--json", metavar="FILE", help="also write a per-post report as JSON")
    _exec_arguments(p)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser(
        "serve",
        help="serve the site locally and rebuild it on every save (live reload)",
        description="Build once into a temporary directory, serve it, and rebuild what a save changes; "
        "open pages reload (CSS edits swap in place) and show build errors as an overlay.",
    )
    p.add_argument("--source", default=".", help="site root (default: .)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 picks a free one)")
    p.add_argument("--open", action="store_true", help="open the site in the default browser")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "import",
        help="import posts from an Atom or RSS feed",
        description="Write one Markdown post per feed entry (front matter + Markdown body).",
    )
    p.add_argument("feed", help="path of the feed file (Atom, RSS or a WordPress export)")
    p.add_argument("--into", default="content/posts", help="directory for the posts (default: content/posts)")
    p.add_argument("--force", action="store_true", help="overwrite existing post files")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser(
        "init",
        help="start a new site in an empty directory",
        description="Write site.yml, a first post, a post whose code is checked, .gitignore and a GitHub Actions "
        "workflow (check, build --strict, publish to Pages) into DIRECTORY, which must be new or empty.",
    )
    p.add_argument("directory", help="where the site goes (created if missing; must be empty)")
    p.add_argument("--lang", default="en", help="the site's languages, default first: en, or en,zh (default: en)")
    p.add_argument("--title", help="the site's title (default: from the directory's name)")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser(
        "new",
        help="start a new post with its front matter filled in",
        description="Create content/posts/SLUG.md with title, date, tags and lang.",
    )
    p.add_argument("title", help="the post's title, or the path of the new file (content/posts/my-post.md)")
    p.add_argument("--lang", help="language code, e.g. zh (default: the site's language)")
    p.add_argument("--slug", help="file name and URL slug (default: from the title)")
    p.add_argument(
        "--translation-of",
        metavar="POST",
        help="start a translation of this post file (with --lang): hello.md -> hello.zh.md, same date and tags",
    )
    p.add_argument("--source", default=".", help="site root (default: .)")
    p.set_defaults(func=cmd_new)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    try:
        return args.func(args)
    except ExecutionFailed as exc:
        for line in exc.lines:
            _err(line)
        _err("error: code in posts failed (fix it, or build with --keep-going to show the errors in the pages)")
        return 1
    except SiteError as exc:
        _err(f"error: {_shown(exc, args)}")
        return 1
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except Exception as exc:
        if args.debug or os.environ.get("SITE_BUILDER_DEBUG"):
            raise
        first = (str(exc).splitlines() or [""])[0]
        _err(f"internal error: {type(exc).__name__}: {first} (run with --debug for a traceback)")
        return 2


def run() -> None:
    """The `site-builder` command: `main`, then, after a build, exit at once. Tearing down the interpreter would
    free the whole heap of posts and pages object by object (0.2 s on a 4,000-post site) for nothing; the output,
    the cache and the printed lines are all written by then. A Ray cluster this process started is left to its
    normal shutdown."""
    argv = sys.argv[1:]
    code = main(argv)
    ray = sys.modules.get("ray")
    if argv[:1] == ["build"] and not (ray is not None and ray.is_initialized()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)
