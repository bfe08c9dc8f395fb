"""One post's session (Sybil's evaluator): copy its files into a fresh directory, run the runner there in the
sandbox, and turn what it wrote into a PostRun."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from site_builder.execute import jail
from site_builder.execute.fingerprint import RUNNER_FILES
from site_builder.execute.isolation import child_env, netns_flags, strict_refusal
from site_builder.execute.job import Job
from site_builder.execute.limits import FILE_SIZE_CAP, RUN_DIR_BYTES, RUN_DIR_FILES, Limits
from site_builder.execute.results import BlockResult, ErrorInfo, PostRun, error_info, well_formed
from site_builder.execute.sandbox import ChildExit, Children, run_child
from site_builder.execute.settings import ExecSettings, format_size
from site_builder.execute.template import Template

OUTPUT_CAP = 1 << 20
LOG_TAIL = 64 << 10  # bytes of the runner's own output read back (a crash's last words)
_SIGNALS = {
    "SIGSEGV": "crashed (segmentation fault)",
    "SIGKILL": "was killed (out of memory?)",
    "SIGABRT": "aborted",
    "SIGXFSZ": f"wrote a file larger than {format_size(FILE_SIZE_CAP)}",
}


class Refused(Exception):
    """The post cannot start (a module it requires is missing, a file it lists is not there): no block runs."""

    def __init__(self, kind: str, message: str, key: str):
        super().__init__(message)
        self.kind, self.message, self.key = kind, message, key


def run_job(job: Job, children: Children | None = None, template: Template | None = None) -> PostRun:
    """Run one post in a fresh interpreter (or a fresh fork of the `template`'s): own temp dir, stdin closed,
    memory cap, timeout, process group."""
    start = time.perf_counter()
    strict = job.settings.isolation == "strict"  # the jail cuts the network itself
    netns = None if job.settings.network or strict else netns_flags()
    warnings = [] if job.settings.network or strict or netns is not None else [_network_warning(job)]
    try:
        if strict and (refused := strict_refusal()) is not None:
            raise Refused("IsolationError", refused, "isolation")
        with tempfile.TemporaryDirectory(prefix="site-builder-run-") as work:
            _check_requires(job.settings.requires, work, child_env(work, job.site_root or job.source_dir, job.env))
            _copy_files(job, work)
            results, error = _run_in(job, work, netns, children, template)
    except Refused as refusal:
        line = job.lines.get(f"exec.{refusal.key}") or job.lines.get("exec") or 1
        blocks = [BlockResult(b.index, b.line, "not run") for b in job.blocks]
        return PostRun(job.rel, job.key, blocks, error_info(refusal.kind, refusal.message, line), seconds=_since(start))
    blocks = [_block_result(b.index, b.line, results.get(b.index)) for b in job.blocks]
    if error is not None:  # the post-level failure belongs to the block that was running
        running = next((b for b in blocks if b.status == "not run"), None)
        if running is not None:
            error["line"] = running.line
    return PostRun(job.rel, job.key, blocks, error, seconds=_since(start), warnings=warnings)


def _network_warning(job: Job) -> str:
    line = job.lines.get("exec.network") or job.lines.get("exec") or job.first_line
    return (
        f"{job.rel}:{line}: exec: network: false could not be applied: network access cannot be blocked here (it "
        "needs Linux network namespaces: root, or unprivileged user namespaces), and the post ran with the network"
    )


def _since(start: float) -> float:
    return time.perf_counter() - start


# Whether modules can be imported, found as the import system finds them (its finders, each package's folders)
# without running any: `importlib.util.find_spec("a.b")` imports `a`, and a post's `requires: [evil.x]` with an
# `evil/` folder in the site ran its code here, with the build's environment and outside strict mode's jail.
_PROBE = """
import os, sys
sys.path[:0] = [p for p in sys.argv[1].split(os.pathsep) if p]
def spec(name, path):
    for finder in sys.meta_path:
        try:
            found = finder.find_spec(name, path)
        except Exception:
            found = None
        if found is not None:
            return found
def importable(name):
    parts, path = name.split("."), None
    for i in range(len(parts)):
        found = spec(".".join(parts[: i + 1]), path)
        if found is None:
            return False
        if found.submodule_search_locations is None:
            return True  # a module that is no package (`os` of `os.path`) makes the rest itself when it runs
        path = found.submodule_search_locations
    return True
print(" ".join(m for m in sys.argv[2:] if not importable(m)))
"""


def _check_requires(requires: list[str], work: str, env: dict[str, str]) -> None:
    """A missing module of `requires` refuses the post. Asked of an isolated interpreter (`-I`: no current folder,
    no PYTHONPATH but the post's own entries) in the post's folder, with the post's environment."""
    if not requires:
        return
    argv = [sys.executable, "-I", "-c", _PROBE, env.get("PYTHONPATH", ""), *requires]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=work, env=env)
    missing = proc.stdout.split()
    if missing:
        message = f"the post requires {', '.join(missing)}, which cannot be imported here"
        raise Refused("ModuleNotFoundError", message, "requires")


def _copy_files(job: Job, work: str) -> None:
    for name in job.settings.files:
        src = Path(job.source_dir) / name
        if Path(name).is_absolute() or ".." in Path(name).parts:  # it would be copied outside the run directory
            message = f"exec: files lists {name}, which is not next to the post (or in a folder there)"
            raise Refused("FileNotFoundError", message, "files")
        real = Path(os.path.realpath(src))
        if not real.is_file() or not real.is_relative_to(os.path.realpath(job.source_dir)):
            # a link out of the post's folder (to the cache key, which only the build can read, or to ~/.ssh) would
            # have the build copy that file where the post reads it, strict mode included
            raise Refused("FileNotFoundError", f"exec: files lists {name}, which is not next to the post", "files")
        dest = Path(work) / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(real, dest)


def _payload(job: Job, result_path: str) -> dict[str, Any]:
    """The job file the runner reads."""
    blocks = [
        {
            "index": b.index,
            "line": b.line,
            "kind": b.kind,
            "code": b.code,
            "skip": b.skip,
            "raises": b.raises,
            "expected": b.expected,
            "expected_line": b.expected_line,
            "skipif": b.skipif,
            "importorskip": b.importorskip,
            "compare": b.compare,
            "clear_after": b.clear_after,
            "scope": b.scope,
            "refused": b.refused,
            "xfail": b.xfail,
        }
        for b in job.blocks
    ]
    return {
        "rel": job.rel,
        "source": job.source_text,
        "result_path": result_path,
        "output_cap": OUTPUT_CAP,
        "memory_text": format_size(job.settings.memory),
        "blocks": blocks,
    }


def _run_in(
    job: Job, work: str, netns: int | None, children: Children | None, template: Template | None
) -> tuple[dict[int, dict[str, Any]], ErrorInfo | None]:
    """Run the runner in `work`: each block's result by index, and the post-level failure, if any. The child is
    told nothing of where the site (or site_builder) is: a copy of the runner, paths relative to `work`, an
    environment from an allow-list."""
    result_path = os.path.join(work, ".results.jsonl")
    with open(os.path.join(work, ".job.json"), "w", encoding="utf-8") as fh:
        json.dump(_payload(job, ".results.jsonl"), fh)
    if template is None:  # a script, not -m: it imports no site_builder (the template has its own copy)
        os.mkdir(os.path.join(work, ".runner"))  # the runner's folder: it imports the modules beside it
        for path in RUNNER_FILES:
            shutil.copyfile(path, os.path.join(work, ".runner", path.name))
    env = child_env(work, job.site_root or job.source_dir, job.env)
    log_path = os.path.join(work, ".runner.log")
    s = job.settings
    jailed = None
    if s.isolation == "strict":
        jailed = jail.spec(work, env.get("PYTHONPATH", ""), s.network, job.site_root or job.source_dir)
    limits = Limits(s.memory, s.timeout, processes=s.processes, netns=netns, jail=jailed)
    try:
        argv = [sys.executable, os.path.join(".runner", "runner.py"), ".job.json"]
        child = run_child(argv, work, env, limits, log_path, children, template)
    except (OSError, subprocess.SubprocessError) as exc:
        first_line = job.first_line
        return {}, error_info("Crash", f"the Python process for the post could not be started: {exc}", first_line)
    results = _read_results(result_path)
    return results, _post_error(job, child, results, log_path)


def _cap_error(job: Job, child: ChildExit, line: int) -> ErrorInfo | None:
    """The failure of a child stopped at its timeout or over a cap."""
    if child.timed_out:
        timeout = job.settings.timeout
        message = f"the post's code did not finish within {timeout:g} s (exec: timeout) and was stopped"
        return error_info("Timeout", message, line)
    caps = {
        "processes": (
            "ProcessLimit",
            f"more than {job.settings.processes} processes running at once (exec: processes)",
        ),
        "files": ("FileLimit", f"more than {RUN_DIR_FILES} files in its directory"),
        "disk": ("DiskLimit", f"more than {format_size(RUN_DIR_BYTES)} on disk in its directory"),
    }
    if child.capped in caps:
        kind, what = caps[child.capped]
        return error_info(kind, f"the post's code had {what}; it was stopped, and everything it started", line)
    return None


def _open_left(path: str) -> IO[bytes] | None:
    """A file the post's process left in its folder, opened for reading only if it is a regular file there: not
    through a link (the build would read, and show in the report and the page, whatever file it points to, such
    as the sealed cache key, which only the build can read), not a FIFO or device that would hold the build."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return os.fdopen(fd, "rb")


def _read_tail(path: str) -> str:
    fh = _open_left(path)
    if fh is None:
        return ""
    with fh:
        fh.seek(max(0, os.fstat(fh.fileno()).st_size - LOG_TAIL))
        return fh.read().decode("utf-8", "replace")


def _post_error(job: Job, child: ChildExit, results: dict[int, dict[str, Any]], log_path: str) -> ErrorInfo | None:
    first_line = job.first_line
    capped = _cap_error(job, child, first_line)
    if capped is not None:
        return capped
    log = _read_tail(log_path)
    if child.code not in (0, None):
        return _crash_error(child.code or 0, job.settings, first_line, log)
    if any(b.index not in results for b in job.blocks) and not any(
        r.get("status") == "failed" for r in results.values()
    ):  # e.g. os._exit(0)
        message = "the Python process running the post exited (status 0) before its last block ran"
        return error_info("Crash", message, first_line, log[-2000:])
    if child.leftover:
        message = "the code left a background process running; it was stopped (wait for what you start)"
        return error_info("BackgroundProcess", message, first_line)
    return None


def _block_result(index: int, line: int, r: dict[str, Any] | None) -> BlockResult:
    if r is None:
        return BlockResult(index, line, "not run")
    return BlockResult(
        index,
        line,
        r["status"],
        r.get("stdout", ""),
        r.get("stderr", ""),
        r.get("figures", []),
        r.get("error"),
        r.get("raised", ""),
        r.get("seconds", 0.0),
        r.get("value"),
    )


def _read_results(path: str) -> dict[int, dict[str, Any]]:
    results: dict[int, dict[str, Any]] = {}
    fh = _open_left(path)
    if fh is None:
        return results
    try:
        with io.TextIOWrapper(fh, encoding="utf-8") as text:
            for line in text:
                if line.strip():
                    r = json.loads(line)
                    if well_formed(r):
                        results[r["index"]] = r
    except (OSError, ValueError, TypeError, KeyError):  # the post's process writes it: anything may be there
        pass
    return results


def _crash_error(code: int, settings: ExecSettings, line: int, log: str) -> ErrorInfo:
    if code < 0:
        sig = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        what = _SIGNALS.get(sig, f"was killed by {sig}")
        return error_info("Crash", f"the Python process running the post {what}", line, log[-2000:])
    last = log.strip().splitlines()[-1] if log.strip() else ""
    message = f"the Python process running the post exited with status {code}" + (f": {last}" if last else "")
    return error_info("Crash", message, line, log[-2000:])
