"""The child process that runs one post's code blocks in one namespace and writes a result per block.

Run as `python .../site_builder/execute/runner.py JOB.json` by session.py, in a fresh temporary directory with
stdin closed. It imports nothing from site_builder, so a post's code sees a plain interpreter.
"""

from __future__ import annotations

import doctest
import io
import json
import linecache
import os
import sys
import time
import traceback
from typing import Any

OUTPUT_CAP = 1 << 20


def _capture_start(path: str) -> tuple[int, int]:
    """Point fds 1 and 2 at capture files, so C-level and subprocess output is caught too."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    for fd, suffix in ((1, ".out"), (2, ".err")):
        target = os.open(path + suffix, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    return saved


def _capture_end(path: str, saved: tuple[int, int], cap: int) -> tuple[str, str, bool]:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    os.dup2(saved[0], 1)
    os.dup2(saved[1], 2)
    os.close(saved[0])
    os.close(saved[1])
    texts, over = [], False
    for suffix in (".out", ".err"):
        with open(path + suffix, "rb") as fh:
            data = fh.read(cap + 1)
        over = over or len(data) > cap
        texts.append(data[:cap].decode("utf-8", "replace"))
    return texts[0], texts[1], over


def _normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines())


def _user_traceback(exc: BaseException, rel: str) -> tuple[str, int | None]:
    """The traceback from the post's own frames only, and the post line where it was raised."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == rel]
    line = frames[-1].lineno if frames else None
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(exc), exc)
    return "".join(lines), line


def _exc_matches(exc: BaseException, name: str) -> bool:
    return any(cls.__name__ == name or f"{cls.__module__}.{cls.__qualname__}" == name for cls in type(exc).__mro__)


def _figures() -> list[str]:
    """SVGs of matplotlib figures left open by the block (then closed)."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return []
    svgs = []
    for num in plt.get_fignums():
        buf = io.StringIO()
        plt.figure(num).savefig(buf, format="svg", bbox_inches="tight")
        svg = buf.getvalue()
        svgs.append(svg[svg.find("<svg") :])
    plt.close("all")
    return svgs


def _error(kind: str, message: str, line: int | None, tb: str = "") -> dict[str, Any]:
    return {"type": kind, "message": message, "line": line, "traceback": tb}


def _describe(exc: BaseException, rel: str, block_line: int, memory: str) -> dict[str, Any]:
    tb, line = _user_traceback(exc, rel)
    message = str(exc)
    if isinstance(exc, MemoryError):
        message = f"the code ran out of memory (this post may use {memory}; raise it with exec: memory)"
    elif isinstance(exc, EOFError) and "reading a line" in message:
        message = "the code read from standard input, which is closed while posts run"
    elif isinstance(exc, SystemExit):
        message = f"the code called sys.exit({exc.code!r}); a post must run to its end"
    return _error(type(exc).__name__, message, line or block_line, tb)


def run_exec(block: dict[str, Any], ns: dict[str, Any], rel: str, memory: str) -> dict[str, Any]:
    code = "\n" * (block["line"] - 1) + block["code"]
    raises = block.get("raises")
    try:
        exec(compile(code, rel, "exec"), ns)
    except BaseException as exc:  # the post's code may raise anything, SystemExit included
        if raises and _exc_matches(exc, raises):
            return {"status": "passed", "raised": f"{type(exc).__name__}: {exc}"}
        return {
            "status": "failed",
            "error": _describe(exc, rel, block["line"], memory),
            "fatal": isinstance(exc, (SystemExit, MemoryError)),
        }
    if raises:
        return {
            "status": "failed",
            "error": _error(
                "DidNotRaise", f"expected {raises} to be raised, but the block ran to its end", block["line"]
            ),
        }
    return {"status": "passed"}


class _CollectingRunner(doctest.DocTestRunner):
    """A doctest runner that records each failing example instead of printing a report."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.collected: list[dict[str, Any]] = []

    def report_failure(self, out: Any, test: Any, example: Any, got: str) -> None:
        line = test.lineno + example.lineno + 1
        record = _error(
            "OutputMismatch",
            f"expected {example.want.strip()!r}, got {got.strip()!r}",
            line,
            f">>> {example.source.strip()}\nExpected:\n{example.want}Got:\n{got}",
        )
        self.collected.append(dict(record, example=example.lineno, got=got))  # where and what: for check --update

    def report_unexpected_exception(self, out: Any, test: Any, example: Any, exc_info: Any) -> None:
        line = test.lineno + example.lineno + 1
        exc = exc_info[1]
        if isinstance(exc, (SystemExit, MemoryError)):
            raise exc
        message = str(exc)
        if isinstance(exc, EOFError):
            message = "the code read from standard input, which is closed while posts run"
        self.collected.append(
            _error(
                type(exc).__name__,
                message,
                line,
                f">>> {example.source.strip()}\n" + "".join(traceback.format_exception_only(type(exc), exc)),
            )
        )


def run_doctest(block: dict[str, Any], ns: dict[str, Any], rel: str, memory: str) -> dict[str, Any]:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block["code"], ns, f"{rel}:{block['line']}", rel, block["line"] - 1)
    runner = _CollectingRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    try:
        runner.run(test, clear_globs=False, out=lambda text: None)
    except (SystemExit, MemoryError) as exc:
        return {"status": "failed", "error": _describe(exc, rel, block["line"], memory), "fatal": True}
    finally:
        ns.update(test.globs)  # DocTest works on a copy: names defined in `>>>` lines stay for later blocks
    if runner.collected:
        first = dict(runner.collected[0], examples=runner.collected)  # every failing example, for check --update
        if len(runner.collected) > 1:
            first = dict(
                first, traceback=first["traceback"] + f"\n(and {len(runner.collected) - 1} more failing examples)"
            )
        return {"status": "failed", "error": first, "examples": len(test.examples), "failures": runner.collected}
    return {"status": "passed", "examples": len(test.examples)}


def main(job_path: str) -> int:
    with open(job_path, encoding="utf-8") as fh:
        job = json.load(fh)
    job["result_path"] = os.path.abspath(job["result_path"])  # a block may change directory
    rel = job["rel"]
    # tracebacks show the post's own lines
    linecache.cache[rel] = (len(job["source"]), None, job["source"].splitlines(True), rel)
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.argv = [rel]
    ns: dict[str, Any] = {"__name__": "__main__", "__file__": rel}
    with open(job["result_path"], "a", encoding="utf-8") as out:
        _run_blocks(job, ns, out)
    _shutdown_ray()
    return 0


def _run_blocks(job: dict[str, Any], ns: dict[str, Any], out: Any) -> None:
    """Each block in turn, its result written (and flushed) as soon as known: a crash loses no earlier result."""
    stop = None
    for block in job["blocks"]:
        result: dict[str, Any]
        if stop is not None:
            result = {"status": "not run", "reason": stop}
        elif block.get("skip"):
            result = {"status": "skipped"}
        else:
            result = _run_block(block, ns, job)
            if result.get("fatal") or (
                result["status"] == "failed"
                and result["error"]["type"] not in ("OutputMismatch", "DidNotRaise", "OutputTooLarge")
            ):
                stop = f"an earlier block (line {block['line']}) failed"
        result["index"] = block["index"]
        out.write(json.dumps(result) + "\n")
        out.flush()
        if result.get("fatal"):
            break


def _run_block(block: dict[str, Any], ns: dict[str, Any], job: dict[str, Any]) -> dict[str, Any]:
    """Run one block with its output captured; check what it printed against its output block."""
    rel, cap, memory = job["rel"], job.get("output_cap", OUTPUT_CAP), job.get("memory_text", "")
    capture = os.path.join(os.path.dirname(job["result_path"]), ".capture")
    start = time.perf_counter()
    saved = _capture_start(capture)
    figures: list[Any] = []
    try:
        result = (run_doctest if block["kind"] == "doctest" else run_exec)(block, ns, rel, memory)
        figures = _figures() if result["status"] == "passed" else []
    finally:
        stdout, stderr, over = _capture_end(capture, saved, cap)
    result.update(stdout=stdout, stderr=stderr, figures=figures, seconds=time.perf_counter() - start)
    if over:
        result.update(
            status="failed",
            error=_error("OutputTooLarge", f"the block printed more than {cap // 1024} KiB", block["line"]),
        )
    elif result["status"] == "passed" and block.get("expected") is not None:
        mismatch = _output_mismatch(block, stdout)
        if mismatch is not None:
            result.update(status="failed", error=mismatch)
    return result


def _output_mismatch(block: dict[str, Any], stdout: str) -> dict[str, Any] | None:
    """The error when the block printed something else than its output block says, with a diff."""
    want, got = _normalise(block["expected"]), _normalise(stdout)
    if want == got:
        return None
    import difflib

    diff = "".join(
        difflib.unified_diff(
            (want + "\n").splitlines(True),
            (got + "\n").splitlines(True),
            f"expected (line {block['expected_line']})",
            "actual output",
        )
    )
    message = "the block printed something else than its output block says"
    return _error("OutputMismatch", message, block["expected_line"], diff)


def _shutdown_ray() -> None:
    ray = sys.modules.get("ray")
    if ray is not None:
        try:
            if ray.is_initialized():
                ray.shutdown()
        except Exception:
            pass


if __name__ == "__main__":
    # run as a script: the import path starts at the run's directory (as with -m), not at this file's folder
    sys.path[0] = os.getcwd()
    sys.exit(main(sys.argv[1]))
