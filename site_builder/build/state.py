"""What one build leaves for the next: on disk for `build` (`.cache/build.pickle`, signed), in memory for `serve`.

On disk the fragments' HTML is the file's second part, read only when a page or feed is to be rendered
(`fill_html`): a rebuild that changes nothing neither checks nor unpickles it (two thirds of the file).

`BuildState` is the one record both kinds of caller keep. A cold CLI build opens it from disk and saves it back; the
dev server keeps it in memory between rebuilds, where it also holds what only a live process can keep (`WarmState`):
the last assembled model, the compiled templates, and the last successful build's posts for the quick path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from site_builder.errors import SiteWarning
from site_builder.models import Post, Rendered
from site_builder.util.files import remove_stale
from site_builder.util.signed import Later, Outdated, Signer, Unsigned

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    import jinja2

    from site_builder.assemble.memo import AssembleMemo
    from site_builder.execute.results import PostRun
    from site_builder.write.templates import TemplateRefs

CACHE_FORMAT = 15
CACHE_FILE = Path(".cache") / "build.pickle"
IMAGE_CACHE = Path(".cache") / "images"

Stamp = tuple[int, int]  # (st_mtime_ns, st_size) of a file


EARLY = ("fragments", "posts", "loading_key")  # saved: known once the posts are read (and "html_sizes")
LATE = ("pages", "output", "build_id", "site_print", "site_warnings")  # saved: known once the output is written


class CacheDamaged(Exception):
    """The cache's second part (the fragments' HTML) turned out damaged when it was read: build from scratch."""


@dataclass
class PostRecord:
    """A post file as the last build read it: its stamp, the loaded post and the key of its fragment."""

    stamp: Stamp
    post: Post
    key: str  # fragment key; "" until an executing post has run


@dataclass
class LastBuild:
    """What the last successful build published, for a rebuild that changes a few posts in place."""

    posts: list[Post]
    rendered: dict[str, Rendered]  # fragments by permalink
    runs: dict[str, PostRun]


@dataclass
class KeptEnv:
    """The Jinja environment, kept while the settings and theme it was made from stay the same."""

    key: str
    env: jinja2.Environment
    refs: TemplateRefs = field(default_factory=dict)  # what each template file names, by its stamp


@dataclass
class WarmState:
    """In memory only, for a long-running caller (the dev server)."""

    assemble_memo: AssembleMemo | None = None  # made by the first build that assembles the site (`memo`)
    env: KeptEnv | None = None
    last: LastBuild | None = None

    def memo(self) -> AssembleMemo:
        """What `assemble` keeps between builds (made on first use: a build with nothing to do never assembles)."""
        if self.assemble_memo is None:
            from site_builder.assemble.memo import AssembleMemo

            self.assemble_memo = AssembleMemo()
        return self.assemble_memo


@dataclass
class BuildState:
    """Fragments by key, the key of each page written, and each post file as last read."""

    path: Path
    fragments: dict[str, Rendered] = field(default_factory=dict)
    pages: dict[str, str] = field(default_factory=dict)
    output: str = ""
    posts: dict[str, PostRecord] = field(default_factory=dict)  # by file path
    build_id: str = ""
    loading_key: str = ""  # the settings that loaded posts depend on
    site_print: str = ""  # what the last build's pages were made of (`build.unchanged`)
    site_warnings: list[SiteWarning] = field(default_factory=list)  # its warnings found after rendering
    # In memory only: feed <entry> XML by what it shows (on disk they would double the cache for 0.2 s a build)
    feed_entries: dict[tuple[str, ...], str] = field(default_factory=dict)
    loaded_posts_changed: bool = True
    warm: WarmState = field(default_factory=WarmState)
    # Fragments opened from disk without their HTML (""), and where it is: see `fill_html`
    unfilled: dict[str, Rendered] = field(default_factory=dict)
    html_sizes: list[int] = field(default_factory=list)  # bytes of each one's HTML in the second part, in order
    later: Later | None = None

    @classmethod
    def open(cls, path: Path, warnings: list[SiteWarning]) -> BuildState:
        """The state a previous build saved at `path`, or an empty one (with a warning when the file was unusable)."""
        remove_stale(path)  # what a build killed while saving it left
        try:
            values, later = Signer.for_user().load(path)
        except (FileNotFoundError, Outdated):  # none, or another version's: built from scratch without a word
            return cls(path)
        except (OSError, Unsigned) as exc:
            warnings.append(damaged(exc))
            return cls(path)
        saved = {k: v for value in values if isinstance(value, dict) for k, v in value.items()}
        if saved.get("format") == CACHE_FORMAT and all(name in saved for name in (*EARLY, *LATE, "html_sizes")):
            state = cls(path)
            for name in (*EARLY, *LATE, "html_sizes"):
                setattr(state, name, saved[name])
            state.unfilled, state.later = dict(state.fragments), later
            return state
        later.fh.close()
        return cls(path)

    def fill_html(self) -> None:
        """Give the fragments opened from disk their HTML (CacheDamaged when it cannot be trusted)."""
        later, self.later = self.later, None
        if later is None:
            return
        try:
            blob = memoryview(later.load())
        except (OSError, Unsigned) as exc:
            raise CacheDamaged(str(exc)) from None
        sizes = self.html_sizes
        if len(sizes) != len(self.unfilled) or sum(sizes) != len(blob):
            raise CacheDamaged("unreadable (fragments missing)")
        start = 0
        try:
            for fragment, size in zip(self.unfilled.values(), sizes, strict=True):
                fragment.html = str(blob[start : start + size], "utf-8")
                start += size
        except UnicodeDecodeError:
            raise CacheDamaged("unreadable (fragments damaged)") from None
        self.unfilled, self.html_sizes = {}, []

    def fill_or_forget(self, warnings: list[SiteWarning]) -> None:
        """`fill_html`, or when that fails, forget all a previous build left (with one warning)."""
        try:
            self.fill_html()
        except CacheDamaged as exc:
            warnings.append(damaged(exc))
            self.fragments, self.posts, self.pages, self.unfilled = {}, {}, {}, {}

    def save(self, late: Callable[[], dict[str, object]] | None = None, owner: int | None = None) -> None:
        """Keep what this build used, signed and written atomically (OSError when it cannot be written).

        The fragments' HTML is the file's second part, UTF-8 one after the other (their sizes in the first part):
        encoding them is a tenth of pickling them, and reading needs no unpickling. The first part is two pickles:
        the `EARLY` fields, then the `LATE` ones, this state's own or `late()`'s (`build.cachesave` saves from a
        process of its own, which waits there for the build to end). `owner`: see `atomic_file`."""
        self.fill_or_forget([])  # a damaged second part was named when it was read
        self.prune()
        fragments = list(self.fragments.values())
        html = [fragment.html for fragment in fragments]
        sizes: list[int] = []

        def encoded() -> Iterator[bytes]:  # one fragment's bytes at a time: a 64,000-post site's HTML is ~300 MB
            for text in html:
                data = text.encode()
                sizes.append(len(data))
                yield data

        for fragment in fragments:
            fragment.html = ""
        try:
            early = {name: getattr(self, name) for name in EARLY}
            Signer.for_user().dump(
                self.path,
                lambda: {"format": CACHE_FORMAT, **early, "html_sizes": sizes},
                encoded(),
                late or self.late_fields,
                owner,
            )
        finally:
            for fragment, text in zip(fragments, html, strict=True):
                fragment.html = text

    def late_fields(self) -> dict[str, object]:
        """What the cache keeps that is known only once the output is written (`LATE`)."""
        return {name: getattr(self, name) for name in LATE}

    def prune(self) -> None:
        """Forget fragments (and feed entries made from them) that no post uses any more."""
        used = {record.key for record in self.posts.values()}
        self.fragments = {k: v for k, v in self.fragments.items() if k in used}
        self.feed_entries = {k: v for k, v in self.feed_entries.items() if k[1] in used}


def damaged(exc: Exception) -> SiteWarning:
    return SiteWarning(f"build cache unusable: {exc}", str(CACHE_FILE), None, "building from scratch")
