"""`site-builder serve`: build into a temporary directory, serve it, rebuild on every save, reload pages."""

from __future__ import annotations

import gc
import os
import shutil
import signal
import threading
import time
import webbrowser
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from site_builder.build import BuildResult, BuildState
from site_builder.build.context import Log
from site_builder.build.incremental import rebuild, warm_up
from site_builder.config import load_config
from site_builder.errors import ExecutionFailed, SiteError, SiteErrors
from site_builder.load import Include
from site_builder.server.http import Broadcaster, SiteServer
from site_builder.server.report import Preview, Printed
from site_builder.server.runs import BackgroundRuns
from site_builder.server.search import SearchIndexer
from site_builder.server.watch import Watcher
from site_builder.util import scratch
from site_builder.util.files import atomic_write
from site_builder.write.theme import find_theme

if TYPE_CHECKING:
    from site_builder.execute.results import PostRun

RELOAD_WAIT = 0.5  # seconds a rebuild waits at most for open pages to reload before writing lists and feeds


SETTLE_EVERY = 25


def settle_heap(builds: int) -> None:
    """After a build, what it left is kept for the next one: move it out of the cycle collector's way
    (`gc.freeze`), so that the next build does not walk the whole warm state again and again (at 16,000 posts the
    collector took half of a new post's rebuild: 3.1 s -> 1.4 s). Young garbage is collected first. What is left in
    reference cycles once frozen (a few hundred objects after the first build, none after later ones, measured at
    1,200 posts) is not collected then: every `SETTLE_EVERY` builds the whole heap is collected once (0.6 s at
    16,000 posts), so it never piles up."""
    if not gc.isenabled():  # a build made without collections (serve's first): all it made is young, and collecting
        gc.freeze()  # it would walk everything (0.5 s at 16,000 posts); its garbage waits for the SETTLE_EVERY-th
        return
    if builds % SETTLE_EVERY == 0:
        gc.unfreeze()
        gc.collect()
    else:
        gc.collect(1)
    gc.freeze()


@dataclass
class DevSite:
    """The dev server's state: where it builds, its warm cache, and the pages' event stream."""

    root: Path
    output: Path
    events: Broadcaster = field(default_factory=Broadcaster)
    state: BuildState | None = None  # what the last build left, kept warm
    log: Log = print
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_error: str = ""
    pending: set[str] | None = field(
        default_factory=set
    )  # files changed since the last build that succeeded (None: unknown)
    interrupt: threading.Event = field(default_factory=threading.Event)  # set by the watcher: a newer change is coming
    printed: Printed = field(default_factory=Printed)  # the warnings and code failures printed
    include: Include = field(default_factory=Include)  # --drafts, --future
    preview: Preview = field(default_factory=Preview)  # a site under a path is previewed at the server's root
    indexer: SearchIndexer | None = None  # the search index, made again once saves are quiet
    builds: int = 0  # builds that succeeded: every SETTLE_EVERY-th collects the whole heap
    runs: BackgroundRuns | None = None  # executing posts run beside the builds (None: each build waits for them)
    ended: set[str] = field(default_factory=set)  # posts whose runs ended, to build again (`run_ended`)
    ended_lock: threading.Lock = field(default_factory=threading.Lock)

    def rebuild(self, changed: list[str] | None = None) -> BuildResult | None:
        """Build (incrementally, warm cache in memory); tell open pages what changed or what is wrong.

        `changed` (paths relative to the root, from the watcher) lets the build read only those posts; files
        changed while builds failed are kept and given to the next build too. None: look at everything.
        """
        with self.lock:
            start = time.perf_counter()
            self.interrupt.clear()
            if changed is None or "site.yml" in changed:  # a url with a path now, or none: previewed at the root
                self.preview = Preview.of(self.root)
            if changed and not self.last_error and self._copy_static(changed):
                self.log(f"updated {', '.join(changed)} in {(time.perf_counter() - start) * 1000:.0f} ms")
                return None
            if changed is None or self.pending is None:
                self.pending = None
            else:
                self.pending.update(changed)
            sent: list[str] = []
            first: list[float] = []

            def pages_ready(rels: list[str]) -> None:
                """The edited posts' pages are in place: reload them now, and let them load before the build
                goes on with lists and feeds (it would slow the server down for them)."""
                first.append(time.perf_counter())
                self._ok()
                paths = ["/" + p for p in rels]
                sent.extend(paths)
                self.events.reload(paths)(RELOAD_WAIT, stop=self.interrupt.is_set)

            try:
                changed_now = None if self.pending is None else sorted(self.pending)
                result = rebuild(
                    self.root, self.output, self.state, changed_now, pages_ready, self.log, self.include,
                    self.preview.base_url, self.runs,
                )  # fmt: skip
            except ExecutionFailed as exc:
                self._error(exc.lines[0], "\n".join(exc.lines), exc)
                return None
            except SiteError as exc:
                self._error(str(exc), str(exc), exc)
                return None
            except BaseException:
                self.pending = None  # the warm cache may be half updated: the next build looks at every file
                raise
            finally:
                if self.runs is not None:  # the pages are out (or the build failed): the runs it asked for start
                    self.runs.release()
            self.state = result.state
            self.pending = set()
            self.printed.report(result, self.log)
            paths = self._announce(result, set(sent))
            self.printed.show(result, self.events)
            if self.builds:  # the first build is announced by serve as "built N posts in Xs"
                self.log(_rebuilt(start, first, paths, changed))
            if paths and self.indexer is not None:
                self.indexer.poke()
            self.builds += 1
            settle_heap(self.builds)
            return result

    def run_ended(self, run: PostRun) -> None:
        """A post's run ended (`server.runs`, in its thread): build the post again with it, in a thread of its own
        (posts whose runs end meanwhile are built by the same rebuild)."""
        state = "failed" if not run.ok else "passed"
        self.log(f"ran the code of {run.rel} in {run.seconds:.1f}s: {state}")
        with self.ended_lock:
            first = not self.ended
            self.ended.add(run.rel)
        if first:
            threading.Thread(target=self._build_ended, name="after runs", daemon=True).start()

    def _build_ended(self) -> None:
        while True:
            with self.ended_lock:
                rels, self.ended = sorted(self.ended), set()
            if not rels or self.events.closed.is_set():
                return
            self.rebuild(rels)

    def _announce(self, result: BuildResult, sent: set[str]) -> list[str]:
        """Tell open pages what the build changed besides the pages already reloaded (`sent`): CSS is swapped in
        place; then write the feeds and sitemap, unless a newer save is already waiting. Returns every path."""
        paths = ["/" + p for p in result.changed_paths if not p.endswith(".site-builder")]
        rest = [p for p in paths if p not in sent]
        self._ok()
        if rest:
            kind = "css" if all(p.endswith(".css") for p in rest) else "reload"
            self.events.send({"type": kind, "paths": rest})
        if result.finish is not None:
            try:
                late = ["/" + p for p in result.finish(self.interrupt.is_set)]
            except OSError as exc:
                self.log(f"warning: could not write the feeds: {exc}")
                late = []
            if late:
                self.events.send({"type": "reload", "paths": late})
            paths += late
        return paths

    def warm_up(self) -> None:
        """Compile templates and render a few posts in this process, so that the first save does not pay for it."""
        with self.lock:
            if self.state is not None:
                warm_up(self.state, self.root / "content")

    def _ok(self) -> None:
        if self.last_error:
            self.last_error = ""
            self.events.send({"type": "ok"})

    def _copy_static(self, changed: list[str]) -> bool:
        """A save that only touches theme static files: copy them over, no pipeline run. False if not so."""
        try:
            theme = find_theme(load_config(self.root))
        except SiteError:
            return False
        statics = [d / "static" for d in theme.dirs]
        updates: list[tuple[Path, str]] = []
        for rel in changed:
            path = self.root / rel
            owner = next((s for s in statics if s in path.parents), None)
            if owner is None or not path.is_file():
                return False
            name = path.relative_to(owner)
            winner = next(s for s in statics if (s / name).is_file())
            updates.append((winner / name, str(name)))
        paths = []
        for src, inside in updates:  # inside: the file's path in the static folder
            dest = self.output / inside
            dest.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(dest, src.read_bytes())
            paths.append("/" + inside.replace(os.sep, "/"))
        kind = "css" if all(p.endswith(".css") for p in paths) else "reload"
        self.events.send({"type": kind, "paths": paths, "all": kind == "reload"})
        return True

    def _error(self, line: str, text: str, exc: SiteError) -> None:
        self.last_error = line
        if isinstance(exc, SiteErrors):  # every problem, sorted, then how many
            for shown in exc.lines():
                self.log(shown)
        else:
            self.log(f"error: {text}")
        message = text if isinstance(exc, ExecutionFailed) else exc.message
        self.events.send({"type": "error", "file": str(exc.file or ""), "line": exc.line, "message": message})


def _rebuilt(start: float, first: list[float], paths: list[str], changed: list[str] | None) -> str:
    """`rebuilt in 80 ms, 40 ms to the edited page: 3 files changed (content/posts/x.md)`."""
    what = f"{len(paths)} files changed" if paths else "nothing changed"
    trigger = f" ({', '.join(changed[:3])}{'...' if changed and len(changed) > 3 else ''})" if changed else ""
    early = f", {(first[0] - start) * 1000:.0f} ms to the edited page" if first else ""
    return f"rebuilt in {(time.perf_counter() - start) * 1000:.0f} ms{early}: {what}{trigger}"


MEMORY_FREE = 2 << 30  # serve's output goes to /dev/shm when it has this much room


def memory_folder() -> str | None:
    """Where serve writes the site it serves: in memory, as Hugo's server renders by default (/dev/shm, a RAM file
    system on Linux: a 16,000-post site's 17,600 files were written in a third of the time they took on a VM's
    disk), when it exists and has 2 GiB free (a container's is often 64 MB); else the temporary folder (None).
    TMPDIR, when set, chooses the folder as always."""
    if os.environ.get("TMPDIR") or not os.path.isdir("/dev/shm") or not os.access("/dev/shm", os.W_OK | os.X_OK):
        return None
    try:
        room = os.statvfs("/dev/shm")
    except OSError:
        return None
    return "/dev/shm" if room.f_bavail * room.f_frsize >= MEMORY_FREE else None


def serve(
    root: Path,
    host: str = "127.0.0.1",
    port: int = 8000,
    open_browser: bool = False,
    log: Log = print,
    ready: threading.Event | None = None,
    stop: threading.Event | None = None,
    include: Include | None = None,
) -> int:
    """Build once, serve, watch and rebuild until Ctrl-C, SIGTERM or SIGHUP (or `stop`); then remove everything it
    made, the temporary output included, whatever moment the signal came."""
    root = root.resolve()
    stop = stop or threading.Event()
    memory = memory_folder()
    scratch.remove_stale("site-builder-serve-", memory)  # what a killed serve left
    workdir = scratch.make("site-builder-serve-", memory)
    previous = _stop_on_signals()
    parts = _Running()
    try:
        site = DevSite(root, workdir / "site", log=log, include=include or Include())
        site.indexer = parts.indexer = SearchIndexer(root, site.output, log)
        site.runs = parts.runs = BackgroundRuns(root, site.run_ended, log=log)
        gc.disable()  # the first build made as `build` makes it, without collections: 16,000 posts, 1.5-2 s less
        try:
            first = site.rebuild()
        finally:
            gc.enable()
        if first is not None:
            pages = f" and {first.standalone} page{'s' * (first.standalone != 1)}" if first.standalone else ""
            log(f"built {first.posts} post{'s' * (first.posts != 1)}{pages} in {first.seconds:.2f}s")
        threading.Thread(target=site.warm_up, name="warm-up", daemon=True).start()
        parts.start(site, host, port)
        url = f"http://{host}:{parts.port}/"
        local = host in ("127.0.0.1", "localhost", "::1")
        scope = "only this machine can connect" if local else "reachable from the network"
        log(f"serving {url} (bound to {host}: {scope}) from {site.output}")
        log("watching content/, themes/ and site.yml; Ctrl-C stops")
        if open_browser:
            webbrowser.open(url)
        if ready is not None:
            ready.set()
        while not stop.wait(0.2):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        parts.stop()
        shutil.rmtree(workdir, ignore_errors=True)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        log("stopped")
    return 0


@dataclass
class _Running:
    """What `serve` started besides the first build: the HTTP server, its thread and the file watcher."""

    server: SiteServer | None = None
    thread: threading.Thread | None = None
    watcher: Watcher | None = None
    site: DevSite | None = None
    port: int = 0
    indexer: SearchIndexer | None = None
    runs: BackgroundRuns | None = None

    def start(self, site: DevSite, host: str, port: int) -> None:
        self.site = site
        self.server = SiteServer((host, port), site)
        self.port = self.server.server_address[1]
        self.watcher = Watcher(site.root, site.rebuild, log=site.log, on_change=site.interrupt.set)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, name="http", daemon=True
        )
        self.thread.start()
        self.watcher.start()

    def stop(self) -> None:
        if self.site is not None:
            self.site.events.closed.set()
        if self.watcher is not None:
            self.watcher.stop()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
        if self.thread is not None:
            self.thread.join(timeout=2)
        if self.indexer is not None:
            self.indexer.stop()
        if self.runs is not None:
            self.runs.stop()


def _stop_on_signals() -> dict[signal.Signals, Any]:
    """SIGTERM and SIGHUP stop the server as Ctrl-C does (in the main thread only, where Python runs handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous: dict[signal.Signals, Any] = {}
    for signum in (signal.SIGTERM, signal.SIGHUP):
        previous[signum] = signal.signal(signum, interrupt)
    return previous
