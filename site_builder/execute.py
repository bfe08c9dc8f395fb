"""Stage 3, execute: run the code blocks of `execute: true` posts in isolated sessions, verify, cache."""

from __future__ import annotations

import ast
import doctest
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from site_builder.errors import SiteError
from site_builder.models import Post
from site_builder.parse import fence_info, parse

RUNNER_VERSION = "3"
DEFAULT_TIMEOUT = 120.0
DEFAULT_MEMORY = 4 << 30
OUTPUT_CAP = 1 << 20
RUN_TOKEN_VAR = "SITE_BUILDER_RUN"
EXEC_LANGS = ("python", "py", "python3", "pycon")
_RUNNER_DIGEST = hashlib.sha1((Path(__file__).parent / "runner.py").read_bytes()).digest()
_UNITS = {
    "": 1,
    "b": 1,
    "k": 1 << 10,
    "kb": 1000,
    "kib": 1 << 10,
    "m": 1 << 20,
    "mb": 10**6,
    "mib": 1 << 20,
    "g": 1 << 30,
    "gb": 10**9,
    "gib": 1 << 30,
    "t": 1 << 40,
    "tb": 10**12,
    "tib": 1 << 40,
}


@dataclass
class CodeBlock:
    """One block a post runs: where it is, what it runs, and what it must print or raise."""

    index: int
    line: int  # line of the block's first code line in the post file
    kind: str  # "exec" or "doctest"
    code: str
    options: dict
    expected: str | None = None
    expected_line: int | None = None

    @property
    def skip(self) -> bool:
        return "skip" in self.options

    @property
    def raises(self) -> str | None:
        return self.options.get("raises") or None


@dataclass
class ExecSettings:
    """A post's `exec:` front matter."""

    timeout: float = DEFAULT_TIMEOUT
    memory: int = DEFAULT_MEMORY
    requires: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


@dataclass
class BlockResult:
    """What one block did."""

    index: int
    line: int
    status: str  # passed | failed | skipped | not run
    stdout: str = ""
    stderr: str = ""
    figures: list[str] = field(default_factory=list)
    error: dict | None = None  # type, message, line, traceback
    raised: str = ""
    seconds: float = 0.0


@dataclass
class PostRun:
    """One post's run: its blocks' results, or a post-level failure (timeout, crash, ...)."""

    rel: str
    key: str
    blocks: list[BlockResult]
    error: dict | None = None
    cached: bool = False
    reason: str = ""
    seconds: float = 0.0

    @property
    def failures(self) -> list[tuple[int, str, str, str]]:
        """(line, type, message, detail) of every failure, the post-level one included."""
        out = [
            (b.error["line"] or b.line, b.error["type"], b.error["message"], b.error.get("traceback", ""))
            for b in self.blocks
            if b.status == "failed" and b.error
        ]
        if self.error:
            out.append((self.error["line"], self.error["type"], self.error["message"], self.error.get("traceback", "")))
        return out

    @property
    def ok(self) -> bool:
        return not self.failures

    def count(self, status: str) -> int:
        return sum(1 for b in self.blocks if b.status == status)


def parse_size(value, rel: str = "", line: int | None = None) -> int:
    if isinstance(value, int):
        return value
    m = re.fullmatch(r"\s*([\d.]+)\s*([a-zA-Z]*)\s*", str(value))
    if not m or m.group(2).lower() not in _UNITS:
        raise SiteError(f"exec: memory {value!r} is not a size like 2GiB or 512MiB", rel, line)
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def format_size(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:g}{unit}"
    return f"{n}B"


def executes(post: Post) -> bool:
    return post.meta.get("execute") is True


def exec_settings(post: Post) -> ExecSettings:
    raw = post.meta.get("exec") or {}
    if not isinstance(raw, dict):
        raise SiteError("'exec' must be a mapping (timeout, memory, requires, files)", post.rel)
    unknown = set(raw) - {"timeout", "memory", "requires", "files"}
    if unknown:
        raise SiteError(
            f"unknown exec setting(s): {', '.join(sorted(unknown))} (use timeout, memory, requires, files)", post.rel
        )
    settings = ExecSettings()
    try:
        if "timeout" in raw:
            settings.timeout = float(raw["timeout"])
    except (TypeError, ValueError):
        raise SiteError(f"exec: timeout must be a number of seconds, got {raw['timeout']!r}", post.rel) from None
    if "memory" in raw:
        settings.memory = parse_size(raw["memory"], post.rel)
    for key in ("requires", "files"):
        value = raw.get(key) or []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise SiteError(f"exec: {key} must be a list", post.rel)
        setattr(settings, key, [str(v) for v in value])
    return settings


_BREAKS_PAIRING = (
    "paragraph_open",
    "heading_open",
    "bullet_list_open",
    "ordered_list_open",
    "blockquote_open",
    "table_open",
    "html_block",
    "math_block",
    "hr",
    "code_block",
    "container_gallery_open",
)


def extract_blocks(post: Post) -> list[CodeBlock]:
    """The blocks a post runs, in order; an `output` fence right after a block is its expected stdout."""
    tokens, _ = parse(post.body)
    blocks: list[CodeBlock] = []
    previous = None
    for tok in tokens:
        if tok.type in _BREAKS_PAIRING:
            previous = None
        if tok.type != "fence":
            continue
        lang, options = fence_info(tok.info)
        line = post.body_line + tok.map[0] + 1
        if lang == "output":
            if previous is not None and previous.expected is None:
                previous.expected, previous.expected_line = tok.content, line
            previous = None
        elif lang in EXEC_LANGS:
            kind = "doctest" if lang == "pycon" or tok.content.lstrip().startswith(">>> ") else "exec"
            previous = CodeBlock(len(blocks), line, kind, tok.content, options)
            blocks.append(previous)
        else:
            previous = None
    return blocks


def _blocks_json(blocks: list[CodeBlock]) -> str:
    """The blocks without their line numbers: prose edited above a block moves it but does not change its run."""
    return json.dumps(
        [{k: v for k, v in asdict(b).items() if k not in ("line", "expected_line")} for b in blocks], sort_keys=True
    )


def imported_modules(blocks: list[CodeBlock], requires: list[str]) -> list[str]:
    """Top-level modules the blocks import (`import numpy as np`, `from ray.util import x`) and those `requires`
    names; blocks that do not parse are left to fail when they run."""
    names = {r.split(".")[0] for r in requires}
    for block in blocks:
        code = block.code
        if block.kind == "doctest":
            code = "".join(ex.source for ex in doctest.DocTestParser().get_examples(code))
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return sorted(names)


@functools.cache
def _stdlib_dirs() -> tuple[str, ...]:
    """Where the standard library is (looked up only when a post executes: sysconfig costs ~4 ms to import)."""
    import sysconfig

    return tuple({os.path.realpath(sysconfig.get_paths()[k]) + os.sep for k in ("stdlib", "platstdlib")})


def package_versions(modules: list[str]) -> dict[str, str]:
    """What is installed for each module, outside the standard library (covered by Python's version): its
    distribution's version and when its files were written (an upgrade, or a reinstall of the same version, changes
    it). Found without importing the modules; a module that is not installed is "missing"."""
    out = {}
    for name in modules:
        if name in sys.builtin_module_names:
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            out[name] = "missing"
            continue
        where = (
            spec.origin
            if spec.origin not in (None, "built-in", "frozen")
            else next(iter(spec.submodule_search_locations or ()), None)
        )
        if where is None or (os.path.realpath(where).startswith(_stdlib_dirs()) and "-packages" not in where):
            continue
        try:
            version = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            version = "?"
        try:
            stamp = os.stat(where).st_mtime_ns
        except OSError:
            stamp = 0
        out[name] = f"{version} {stamp}"
    return out


def run_key(post: Post, blocks: list[CodeBlock], settings: ExecSettings, packages: dict[str, str]) -> str:
    """What a run depends on: the post's path, the blocks, their options, the settings, Python, the packages the
    blocks import (version and install time), the declared files.

    Not the blocks' line numbers: a cached run is moved to the blocks' new lines when loaded (_move_lines)."""
    h = hashlib.sha1(RUNNER_VERSION.encode())
    h.update(_RUNNER_DIGEST)
    h.update(sys.version.encode())
    h.update(json.dumps(packages, sort_keys=True).encode())
    h.update(post.rel.encode())  # results name the post (tracebacks, failure lines)
    h.update(_blocks_json(blocks).encode())
    h.update(json.dumps(asdict(settings), sort_keys=True).encode())
    for name in settings.files:
        path = post.source.parent / name
        h.update(name.encode())
        h.update(path.read_bytes() if path.is_file() else b"<missing>")
    return h.hexdigest()


@dataclass
class Job:
    """Everything needed to run one post, picklable (sent to Ray workers as is)."""

    rel: str
    source_text: str
    source_dir: str
    blocks: list[CodeBlock]
    settings: ExecSettings
    key: str
    packages: dict[str, str] = field(default_factory=dict)


def make_job(post: Post) -> Job:
    settings = exec_settings(post)
    blocks = extract_blocks(post)
    packages = package_versions(imported_modules(blocks, settings.requires))
    return Job(
        post.rel,
        post.source.read_text(encoding="utf-8"),
        str(post.source.parent),
        blocks,
        settings,
        run_key(post, blocks, settings, packages),
        packages,
    )


def _limits(memory: int) -> Callable[[], None]:
    def apply() -> None:  # runs in the child between fork and exec
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 30, 1 << 30))

    return apply


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _tagged_processes(token: str) -> list[int]:
    """Processes whose environment carries this run's token: everything the post's code started, even the ones
    that left its process group (setsid, daemons). Linux only (/proc); elsewhere the group alone is checked."""
    needle, pids = f"{RUN_TOKEN_VAR}={token}".encode(), []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return pids
    for name in entries:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/environ", "rb") as fh:
                    if needle in fh.read().split(b"\0"):
                        pids.append(int(name))
            except OSError:
                pass
    return pids


def _missing_modules(requires: list[str]) -> list[str]:
    if not requires:
        return []
    probe = "import importlib.util,sys;print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))"
    proc = subprocess.run([sys.executable, "-c", probe, *requires], capture_output=True, text=True, timeout=60)
    return proc.stdout.split()


def _front_matter_line(text: str, key: str) -> int:
    """The line of the `exec:` setting `key` in a post's front matter (or of `exec:`; else 1, the `---`)."""
    found = 1
    for n, line in enumerate(text.split("\n")[1:], 2):
        if line.rstrip() == "---":
            break
        if line.strip().startswith(f"{key}:"):
            return n
        if line.startswith("exec:"):
            found = n
    return found


def run_job(job: Job) -> PostRun:
    """Run one post in a fresh interpreter: own temp dir, stdin closed, memory cap, timeout, process group."""
    start = time.perf_counter()
    settings = job.settings
    first_line = job.blocks[0].line if job.blocks else 1

    def refuse(kind: str, message: str, key: str) -> PostRun:  # the post cannot start: no block runs
        err = {"type": kind, "line": _front_matter_line(job.source_text, key), "traceback": "", "message": message}
        return PostRun(
            job.rel,
            job.key,
            [BlockResult(b.index, b.line, "not run") for b in job.blocks],
            err,
            seconds=time.perf_counter() - start,
        )

    missing = _missing_modules(settings.requires)
    if missing:
        return refuse(
            "ModuleNotFoundError", f"the post requires {', '.join(missing)}, which cannot be imported here", "requires"
        )
    with tempfile.TemporaryDirectory(prefix="site-builder-run-") as work:
        for name in settings.files:
            src = Path(job.source_dir) / name
            if Path(name).is_absolute() or ".." in Path(name).parts:  # it would be copied outside the run directory
                return refuse(
                    "FileNotFoundError",
                    f"exec: files lists {name}, which is not next to the post (or in a folder there)",
                    "files",
                )
            if not src.is_file():
                return refuse("FileNotFoundError", f"exec: files lists {name}, which is not next to the post", "files")
            dest = Path(work) / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
        result_path = os.path.join(work, ".results.jsonl")
        job_path = os.path.join(work, ".job.json")
        payload = {
            "rel": job.rel,
            "source": job.source_text,
            "result_path": result_path,
            "output_cap": OUTPUT_CAP,
            "memory_text": format_size(settings.memory),
            "blocks": [
                {
                    "index": b.index,
                    "line": b.line,
                    "kind": b.kind,
                    "code": b.code,
                    "skip": b.skip,
                    "raises": b.raises,
                    "expected": b.expected,
                    "expected_line": b.expected_line,
                }
                for b in job.blocks
            ],
        }
        with open(job_path, "w", encoding="utf-8") as fh:
            json.dump(payload, fh)
        token = f"{os.getpid()}-{threading.get_ident()}-{time.monotonic_ns()}"
        env = dict(os.environ, MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
        env[RUN_TOKEN_VAR] = token
        env.pop("PYTHONSTARTUP", None)
        log_path = os.path.join(work, ".runner.log")
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "site_builder.runner", job_path],
                cwd=work,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_limits(settings.memory),
            )
            error = None
            try:
                code = proc.wait(timeout=settings.timeout)
            except subprocess.TimeoutExpired:
                _kill_group(proc.pid)
                proc.wait()
                code = None
                error = {
                    "type": "Timeout",
                    "line": first_line,
                    "traceback": "",
                    "message": f"the post's code did not finish within {settings.timeout:g} s (exec: timeout) and was stopped",
                }
            leftover = False
            for _ in range(20):  # processes the code started and left behind, in its group or not
                strays = _tagged_processes(token)
                if not _group_alive(proc.pid) and not strays:
                    break
                leftover = True
                _kill_group(proc.pid)
                for pid in strays:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                time.sleep(0.01)
        results = _read_results(result_path)
        if error is None and code not in (0, None):
            error = _crash_error(code, settings, first_line, Path(log_path).read_text(errors="replace"))
        if (
            error is None
            and any(b.index not in results for b in job.blocks)
            and not any(r.get("status") == "failed" for r in results.values())
        ):  # e.g. os._exit(0)
            error = {
                "type": "Crash",
                "line": first_line,
                "traceback": Path(log_path).read_text(errors="replace")[-2000:],
                "message": "the Python process running the post exited (status 0) before its last block ran",
            }
        if error is None and leftover:
            error = {
                "type": "BackgroundProcess",
                "line": first_line,
                "traceback": "",
                "message": "the code left a background process running; it was stopped (wait for what you start)",
            }
    blocks = []
    for b in job.blocks:
        r = results.get(b.index)
        if r is None:
            blocks.append(BlockResult(b.index, b.line, "not run"))
            continue
        blocks.append(
            BlockResult(
                b.index,
                b.line,
                r["status"],
                r.get("stdout", ""),
                r.get("stderr", ""),
                r.get("figures", []),
                r.get("error"),
                r.get("raised", ""),
                r.get("seconds", 0.0),
            )
        )
    if error is not None:  # the post-level failure belongs to the block that was running
        running = next((b for b in blocks if b.status == "not run"), None)
        if running is not None:
            error["line"] = running.line
    return PostRun(job.rel, job.key, blocks, error, seconds=time.perf_counter() - start)


def _read_results(path: str) -> dict[int, dict]:
    results = {}
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    r = json.loads(line)
                    results[r["index"]] = r
    except (OSError, ValueError):
        pass
    return results


def _crash_error(code: int, settings: ExecSettings, line: int, log: str) -> dict:
    if code < 0:
        sig = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        what = {
            "SIGSEGV": "crashed (segmentation fault)",
            "SIGKILL": "was killed (out of memory?)",
            "SIGABRT": "aborted",
            "SIGXFSZ": "wrote a file larger than 1 GiB",
        }.get(sig, f"was killed by {sig}")
        return {
            "type": "Crash",
            "line": line,
            "traceback": log[-2000:],
            "message": f"the Python process running the post {what}",
        }
    last = log.strip().splitlines()[-1] if log.strip() else ""
    return {
        "type": "Crash",
        "line": line,
        "traceback": log[-2000:],
        "message": f"the Python process running the post exited with status {code}" + (f": {last}" if last else ""),
    }


def parallel_slots(jobs: list[Job]) -> int:
    """Posts run at once: min(cores, available memory // the largest post's cap), at least 1."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    largest = max((j.settings.memory for j in jobs), default=DEFAULT_MEMORY)
    return max(1, min(cores, available_memory() // max(largest, 1)))


def available_memory() -> int:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


@dataclass
class ExecOptions:
    """How `build` and `check` run posts."""

    rerun: bool = False
    executor: str = "local"  # local | ray
    ray_address: str | None = None
    progress: Callable[[str], None] | None = None


def run_posts(posts: list[Post], cache_dir: Path, options: ExecOptions) -> dict[str, PostRun]:
    """Run every executing post (from the cache when unchanged); returns runs by post path."""
    jobs, runs = [], {}
    for post in posts:
        if executes(post):
            jobs.append(make_job(post))
    todo = []
    for job in jobs:
        cached = None if options.rerun else _load_cached(cache_dir, job)
        if cached is not None:
            cached.cached, cached.reason = True, "cached"
            runs[job.rel] = cached
        else:
            todo.append(job)
    reasons = _reasons(cache_dir, todo, options.rerun)
    if todo:
        runner = _ray_runner(options.ray_address) if options.executor == "ray" else run_job
        progress = _Progress(len(todo), options.progress)
        slots = len(todo) if options.executor == "ray" else parallel_slots(todo)
        with ThreadPoolExecutor(max_workers=min(slots, len(todo))) as pool:
            for job, run in zip(todo, pool.map(lambda j: progress.track(j.rel, runner, j), todo), strict=False):
                run.reason = reasons[job.rel]
                runs[job.rel] = run
                _store(cache_dir, job, run)
        progress.close()
    return runs


def _reasons(cache_dir: Path, jobs: list[Job], rerun: bool) -> dict[str, str]:
    index = _index(cache_dir)
    out = {}
    for job in jobs:
        prev = index.get(job.rel)
        if rerun:
            out[job.rel] = "forced (--rerun)"
        elif prev is None:
            out[job.rel] = "new"
        elif prev.get("code") != _code_key(job):
            out[job.rel] = "code changed"
        elif prev.get("files") != _files_key(job):
            out[job.rel] = "file changed"
        elif prev.get("packages", job.packages) != job.packages:
            old = prev.get("packages") or {}
            names = sorted(n for n in set(old) | set(job.packages) if old.get(n) != job.packages.get(n))
            out[job.rel] = f"packages changed ({', '.join(names)})"
        else:
            out[job.rel] = "settings or Python changed"
    return out


def _code_key(job: Job) -> str:
    return hashlib.sha1(_blocks_json(job.blocks).encode()).hexdigest()


def _files_key(job: Job) -> str:
    h = hashlib.sha1()
    for name in job.settings.files:
        path = Path(job.source_dir) / name
        h.update(path.read_bytes() if path.is_file() else b"")
    return h.hexdigest()


def _index(cache_dir: Path) -> dict:
    try:
        return json.loads((cache_dir / "index.json").read_text())
    except (OSError, ValueError):
        return {}


def _load_cached(cache_dir: Path, job: Job) -> PostRun | None:
    try:
        data = json.loads((cache_dir / f"{job.key}.json").read_text(encoding="utf-8"))
        old_lines = data.pop("lines")
        data["blocks"] = [BlockResult(**b) for b in data["blocks"]]
        run = PostRun(**data)
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if len(old_lines) != len(job.blocks):
        return None
    return _move_lines(run, job, old_lines) if old_lines != _block_lines(job) else run


def _block_lines(job: Job) -> list[list[int | None]]:
    return [[b.line, b.expected_line] for b in job.blocks]


def _move_lines(run: PostRun, job: Job, old_lines: list) -> PostRun:
    """A cached run of blocks that moved (prose edited above them), its line numbers moved along."""
    spans = []  # (first old line, after last old line, shift) of each block's code and expected output
    for b, (line, expected_line) in zip(job.blocks, old_lines, strict=False):
        spans.append((line, line + b.code.count("\n") + 1, b.line - line))
        if expected_line is not None and b.expected_line is not None:
            spans.append(
                (expected_line, expected_line + (b.expected or "").count("\n") + 1, b.expected_line - expected_line)
            )

    def move(n):
        if not isinstance(n, int):
            return n
        return next((n + shift for first, end, shift in spans if first <= n < end), n)

    rel = re.escape(job.rel)
    pattern = re.compile(rf'(File "{rel}", line |{rel}:|expected \(line )(\d+)')

    def text(s: str) -> str:
        return pattern.sub(lambda m: m.group(1) + str(move(int(m.group(2)))), s or "")

    def error(e: dict | None) -> dict | None:
        return None if e is None else dict(e, line=move(e.get("line")), traceback=text(e.get("traceback")))

    for b in run.blocks:
        b.line, b.error, b.stderr = move(b.line), error(b.error), text(b.stderr)
    run.error = error(run.error)
    return run


_INDEX_LOCK = threading.Lock()


def _store(cache_dir: Path, job: Job, run: PostRun) -> None:
    """Cache a run (passing or failing: the same code fails the same way) and index it by post."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    data = asdict(run)
    data["cached"], data["reason"] = False, ""
    data["lines"] = _block_lines(job)
    tmp = cache_dir / f".{job.key}.tmp"
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, cache_dir / f"{job.key}.json")
    with _INDEX_LOCK:
        index = _index(cache_dir)
        index[job.rel] = {"key": job.key, "code": _code_key(job), "files": _files_key(job), "packages": job.packages}
        (cache_dir / "index.json").write_text(json.dumps(index, indent=1))


class _Progress:
    """Posts done / total and the one running longest: a live line on a TTY, plain lines otherwise."""

    def __init__(self, total: int, sink: Callable[[str], None] | None):
        self.total, self.done, self.sink = total, 0, sink
        self.running: dict[str, float] = {}
        self.lock = threading.Lock()
        self.tty = sink is not None and sys.stderr.isatty()
        self._stop = threading.Event()
        if self.tty:
            threading.Thread(target=self._tick, daemon=True).start()

    def track(self, rel: str, fn, job):
        with self.lock:
            self.running[rel] = time.monotonic()
            if self.sink and not self.tty:
                self.sink(f"running {rel}")
        try:
            return fn(job)
        finally:
            with self.lock:
                self.running.pop(rel, None)
                self.done += 1
                if self.sink and not self.tty:
                    self.sink(f"[{self.done}/{self.total}] done {rel}")

    def _line(self) -> str:
        with self.lock:
            longest = min(self.running.items(), key=lambda kv: kv[1], default=None)
            extra = f", running longest: {longest[0]} ({time.monotonic() - longest[1]:.0f}s)" if longest else ""
            return f"posts {self.done}/{self.total}{extra}"

    def _tick(self) -> None:
        while not self._stop.wait(0.2):
            sys.stderr.write("\r\033[K" + self._line())
            sys.stderr.flush()

    def close(self) -> None:
        self._stop.set()
        if self.tty:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def _probe_ray_address(address: str | None) -> None:
    """A HOST:PORT that nothing answers on is one error line: ray.init would wait for it forever."""
    m = re.fullmatch(r"\[?([^\s/\]]+?)\]?:(\d+)", address or "")
    if not m:
        return  # "auto", ray://..., or none (a local cluster): left to Ray
    try:
        socket.create_connection((m.group(1), int(m.group(2))), timeout=5).close()
    except OSError as exc:
        raise SiteError(f"cannot reach the Ray cluster at --ray-address {address}: {exc.strerror or exc}") from None


def _ray_runner(address: str | None):
    """Run each post as a Ray task with memory= its cap, on an existing cluster (or a local one)."""
    try:
        import ray
    except ImportError:
        raise SiteError("--executor ray needs Ray: pip install 'site-builder[ray]'") from None
    if not ray.is_initialized():
        _probe_ray_address(address)
        try:
            ray.init(
                address=address,
                ignore_reinit_error=True,
                log_to_driver=False,
                runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}},
            )
        except (ConnectionError, RuntimeError, ray.exceptions.RayError) as exc:  # RayError: AuthenticationError
            hint = (
                " (a cluster with token authentication needs RAY_AUTH_MODE=token)" if "uthenticat" in str(exc) else ""
            )
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise SiteError(
                f"cannot connect to the Ray cluster at {address or 'a new local cluster'}: {first}{hint}"
            ) from None
    remote = ray.remote(num_cpus=1)(run_job)

    def run(job: Job) -> PostRun:
        return ray.get(remote.options(memory=job.settings.memory).remote(job))

    return run


def failure_lines(run: PostRun, failures: list[tuple[int, str, str, str]] | None = None) -> list[str]:
    """`content/posts/x.md:42: Type: message` lines, each followed by its indented detail."""
    out = []
    for line, kind, message, detail in run.failures if failures is None else failures:
        out.append(f"{run.rel}:{line}: {kind}: {message}")
        out += ["    " + d for d in detail.rstrip().splitlines()]
    return out
