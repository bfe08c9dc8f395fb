"""The pytest plugin's runs: one site's posts run at once, in parallel, through the engine `check` uses, in a process
forked from pytest's (an engine process), on the core pytest leaves idle while it starts, collects and reports; a
post's blocks are reported as soon as its run is known.

An engine process is forked as soon as the plugin is loaded when a site's content is in sight (`pytest content/`,
or `pytest` in a site): it imports what runs posts and starts the site's template process while pytest is still
starting. Once pytest has read its arguments, it is told which posts to run (those under the paths given), else
it ends. Without one in sight, or for posts selected otherwise (-k, a test id), an engine is forked when they are
known (with the session, or when collection ends).

The engine first says what each post holds (`Described`: its blocks and their names, or why it cannot run), which
is what pytest collects (pytest's process parses nothing), then each post's run as it is known. A post no engine
describes is described here, by the same function. This module imports only the standard library (and util.private,
which does too): what parses and runs posts is imported by the engine."""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from site_builder.util.private import keep_private

if TYPE_CHECKING:
    from site_builder.config.site import SiteConfig
    from site_builder.errors import SiteWarning
    from site_builder.execute.executors import Started
    from site_builder.execute.results import PostRun

STOP_WAIT = 5.0  # seconds an engine stopped early (pytest -x, Ctrl-C) may take to stop its posts and clean up
END_WAIT = 30.0  # seconds an engine that told every run may take to stop its template
_HEADER = struct.Struct("<I")


@dataclass
class Described:
    """What pytest collects of one post file: its path from the site root, and each block it runs as (index, first
    code line, test name); or the message of why it cannot run (a collection error); no blocks: not executing. And
    the post's warnings, as a build gives them (its front matter's; its code blocks' when it executes)."""

    rel: str
    blocks: list[tuple[int, int, str]] = field(default_factory=list)
    error: str | None = None
    warnings: list[SiteWarning] = field(default_factory=list)


def describe(path: Path, config: SiteConfig) -> tuple[Described, Any]:
    """A post file as pytest collects it, and its parsed post when it runs (else None)."""
    from site_builder.errors import SiteError
    from site_builder.execute.blocks import code_blocks
    from site_builder.execute.settings import exec_settings
    from site_builder.load import load_post
    from site_builder.parse import parse_post

    try:
        post = load_post(path, config)
        if post.execute:
            exec_settings(post)  # bad `exec:` settings: a collection error, not a traceback per block
    except SiteError as exc:
        return Described("", error=str(exc)), None
    if not post.execute:  # `execte: true` is a post that never runs: its front matter's warning says so
        return Described(post.rel, warnings=post.warnings), None
    parsed = parse_post(post)
    cells = post.cells  # a notebook's blocks are named by cell: `nb.ipynb::cell 3:line 1`
    names = [(b.index, b.line, cells.where(b.line) if cells else f"line {b.line}") for b in code_blocks(parsed)]
    return Described(post.rel, names, warnings=[*post.warnings, *parsed.warnings()]), parsed


def _send(out: BinaryIO, *message: Any) -> None:
    data = pickle.dumps(message)
    out.write(_HEADER.pack(len(data)) + data)
    out.flush()


def _receive(pipe: BinaryIO) -> Any:
    """The next message, or None at the end."""
    header = pipe.read(_HEADER.size)
    return pickle.loads(pipe.read(_HEADER.unpack(header)[0])) if len(header) == _HEADER.size else None


class Batch:
    """An engine process for the site at `root`, forked now; `start` tells it which posts to run (the post files
    `files`, or those under the folders `under`), `cancel` ends it untold."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.found: dict[str, Described] = {}  # by the post file's real path
        self.discovered = threading.Event()
        self.error: str | None = None
        self._runs: dict[str, PostRun] = {}
        self._running = 0  # posts the engine runs
        self._ready: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._finished = False
        keep_private()  # pytest's environment (a CI token) and the engine's memory stay out of the posts' reach
        jobs_read, jobs_write = os.pipe()
        out_read, out_write = os.pipe()
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # until the engine has its handler
        try:
            with warnings.catch_warnings():  # another engine's reader thread may run: the engine uses none of its locks
                warnings.simplefilter("ignore", DeprecationWarning)
                self.pid = os.fork()
            if self.pid == 0:  # the engine process: never returns
                try:
                    os.close(jobs_write)
                    os.close(out_read)
                    _engine(os.fdopen(jobs_read, "rb"), os.fdopen(out_write, "wb"), root)
                finally:
                    os._exit(0)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(jobs_read)
        os.close(out_write)
        self._jobs = os.fdopen(jobs_write, "wb")
        self._reader = threading.Thread(target=self._read, args=(os.fdopen(out_read, "rb"),), daemon=True)

    def start(self, rerun: bool, files: list[Path] | None = None, under: list[Path] | None = None) -> Batch:
        try:
            _send(self._jobs, rerun, files or [], under or [])
            self._jobs.close()
        except OSError:
            pass  # the engine ended: its message says why
        self._reader.start()
        return self

    def cancel(self) -> None:
        """End an engine that was told nothing (its template stops with it)."""
        self._jobs.close()
        try:
            os.kill(self.pid, signal.SIGINT)  # it may still be starting the template
        except ProcessLookupError:
            pass
        threading.Thread(target=_reap, args=(self.pid, END_WAIT), daemon=True).start()

    def _read(self, pipe: BinaryIO) -> None:
        try:
            while (message := _receive(pipe)) is not None:
                if message[0] == "found":
                    self.found, self._running = message[1], message[2]
                    self.discovered.set()
                elif message[0] == "run":
                    self._runs[message[1]] = message[2]
                    self._event(message[1]).set()
                else:
                    self.error = message[1]
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            pipe.close()
            self.discovered.set()
            with self._lock:
                self._finished = True
                events = list(self._ready.values())
            for event in events:
                event.set()

    def _event(self, rel: str) -> threading.Event:
        with self._lock:
            event = self._ready.setdefault(rel, threading.Event())
            if self._finished:
                event.set()
        return event

    def described(self, path: Path) -> Described | None:
        """What the engine found in the post file at `path`; None when it does not run it."""
        self.discovered.wait()
        return self.found.get(os.path.realpath(path))

    def wait(self, rel: str) -> PostRun:
        self._event(rel).wait()
        if rel not in self._runs:
            raise RuntimeError(f"the posts could not be run: {self.error or 'the engine process ended'}")
        return self._runs[rel]

    def stop(self) -> None:
        """Wait for the engine to end; stop it first if it still runs posts (pytest stopped early: -x, Ctrl-C): its
        posts are stopped and their folders removed, as Ctrl-C does in `check`."""
        if self.discovered.is_set() and len(self._runs) >= self._running and not self.error:
            self._reader.join(END_WAIT)  # every run told: the engine is closing its template
        if self._reader.is_alive():
            try:
                os.kill(self.pid, signal.SIGINT)
            except ProcessLookupError:
                pass
            self._reader.join(STOP_WAIT)
        _reap(self.pid, 0 if self._reader.is_alive() else END_WAIT)


def _reap(pid: int, wait: float) -> None:
    """Wait up to `wait` seconds for the engine process to end, then kill it."""
    try:
        for _ in range(int(wait * 500)):
            if os.waitpid(pid, os.WNOHANG)[0]:
                return
            time.sleep(0.002)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ChildProcessError, ProcessLookupError):
        pass


def _engine(jobs: BinaryIO, out: BinaryIO, root: Path) -> None:
    """The engine process: start the site's template; meanwhile, told which posts, describe them; then run those
    that execute as `check` does, telling each run."""
    started: Started | None = None
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # how it is stopped, even where pytest ignores it
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        _die_with_pytest()
        quiet = os.open(os.devnull, os.O_RDWR)  # what it might print would land in pytest's output
        for fd in (0, 1, 2):
            os.dup2(quiet, fd)
        from site_builder.config import load_config
        from site_builder.execute.template import start_template

        config = load_config(root)
        told: list[tuple[bool, list[Any]] | None] = []
        teller = threading.Thread(target=lambda: told.append(_describe_told(jobs, out, config)), daemon=True)
        teller.start()
        env = {name: os.environ[name] for name in config.exec.env if name in os.environ}  # as make_job passes it
        started = start_template(config.exec.preload, str(config.root), env)  # by this thread: it dies with it
        teller.join()
        if told and told[0] is not None and told[0][1]:
            from site_builder.check import EXEC_CACHE
            from site_builder.execute import run_posts
            from site_builder.execute.options import ExecOptions

            rerun, parsed = told[0]
            tell = lambda rel, run: _send(out, "run", rel, run)
            run_posts(parsed, root / EXEC_CACHE, ExecOptions(rerun=rerun), config.exec, tell, started)
    except BaseException as exc:  # told to every post still waiting
        _tell_error(out, exc)
    finally:
        if started is not None and started[0] is not None:
            started[0].close()  # when no post ran (run_all closes it too)
        os._exit(0)


def _describe_told(jobs: BinaryIO, out: BinaryIO, config: SiteConfig) -> tuple[bool, list[Any]] | None:
    """The posts the engine is told to run, described to pytest: whether to run them again, and those parsed."""
    try:
        job = _receive(jobs)
        if job is None:
            return None
        rerun, files, under = job
        found, parsed = {}, []
        for path in _posts_under(config, under) if under else files:
            found[os.path.realpath(path)], post = describe(path, config)
            if post is not None:
                parsed.append(post)
        _send(out, "found", found, len(parsed))
        from site_builder.execute import executors, store  # noqa: F401  (imported while the template starts)

        return rerun, parsed
    except Exception as exc:
        _tell_error(out, exc)
        return None


def _tell_error(out: BinaryIO, exc: BaseException) -> None:
    try:
        _send(out, "error", f"{type(exc).__name__}: {exc}")
    except BaseException:
        pass


def _posts_under(config: SiteConfig, under: list[Path]) -> list[Path]:
    from site_builder.load import find_post_files

    return [p for p in find_post_files(config) if any(p.resolve().is_relative_to(u) for u in under)]


def _die_with_pytest() -> None:
    """A killed pytest stops its engine as Ctrl-C would (the engine's posts stopped, their folders removed)."""
    if sys.platform.startswith("linux"):
        import ctypes

        parent = os.getppid()
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGINT)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGINT)


def site_root(path: Path) -> Path | None:
    """The folder holding site.yml above `path`."""
    for parent in path.parents:
        if (parent / "site.yml").exists():
            return parent
    return None


def in_sight(args: list[str], base: Path) -> Path | None:
    """The site whose content pytest's command line points at, if any (a guess, before pytest has read it): a path
    given inside a site's `content` folder, or holding one (with no path given: the current folder)."""
    paths = [base / arg.split("::")[0] for arg in args if not arg.startswith("-")] or [base]
    for path in paths:
        try:
            path = path.resolve()
            if "content" in path.parts or (path / "content").is_dir():
                root = site_root(path / "_")
                if root is not None:
                    return root
        except OSError:
            continue
    return None


def early_batches(args: list[str], base: Path, rerun: bool, warm: Batch | None) -> dict[Path, Batch]:
    """A batch per site for the paths pytest was given, started now (none when an argument is not a plain path:
    `file::test` selects blocks, and posts then run when collection ends); `warm`, an engine forked for its site
    before, runs that site's."""
    paths = []
    for arg in args:
        path = (base / arg).resolve()
        if "::" in arg or not path.exists():
            return {}
        paths.append(path)
    roots = {site_root(p / "_" if p.is_dir() else p) for p in paths}
    batches = {}
    for root in roots:
        if root is not None:
            batch = warm if warm is not None and warm.root == root else Batch(root)
            batches[root] = batch.start(rerun, under=paths)
    return batches
