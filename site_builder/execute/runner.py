"""The child process that runs one post's code blocks in one namespace and writes a result per block.

Run as `python .runner/runner.py JOB.json` by session.py (the Ray executor: a copy of this file and of
runvalues.py, which shows the value a block ends with, in the run's `.runner/` folder), or imported by the template
process (forkserver.py) whose forked child calls `main`; either way in a fresh temporary directory with stdin
closed. It imports nothing from site_builder, so a post's code sees a plain interpreter.
"""

from __future__ import annotations

import ast
import doctest
import io
import json
import linecache
import os
import re
import sys
import time
import traceback
from typing import Any

from runvalues import OUTPUT_CAP, represent  # type: ignore[import-not-found]  # the copy next to this file


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
    for fd, copy in ((1, saved[0]), (2, saved[1])):
        os.dup2(copy, fd)
        os.close(copy)
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


def _compile_block(code: str, rel: str) -> tuple[Any, Any]:
    """The block as Jupyter runs a cell: its statements, and a last bare expression apart to be evaluated (None
    when the block does not end with one, or ends it with `;` to hide its value)."""
    tree = ast.parse(code, rel)
    last = tree.body[-1] if tree.body else None
    if not isinstance(last, ast.Expr) or _hidden(code, last):
        return compile(tree, rel, "exec"), None
    body = ast.Module(body=tree.body[:-1], type_ignores=[])
    return compile(body, rel, "exec"), compile(ast.Expression(last.value), rel, "eval")


def _hidden(code: str, last: ast.Expr) -> bool:
    """Whether a `;` follows the last expression (only `;`, spaces, comments and line ends can follow it)."""
    lines = code.replace("\r\n", "\n").split("\n")
    end = last.end_lineno or last.lineno
    first = lines[end - 1].encode("utf-8")[last.end_col_offset or 0 :].decode("utf-8", "replace")
    return "\n".join([first, *lines[end:]]).lstrip(" \t\r\n\\\f").startswith(";")


def run_exec(block: dict[str, Any], ns: dict[str, Any], rel: str, memory: str) -> dict[str, Any]:
    code = "\n" * (block["line"] - 1) + block["code"]
    raises = block.get("raises")
    value = None
    try:
        body, last = _compile_block(code, rel)
        exec(body, ns)
        if last is not None:
            value = represent(eval(last, ns))
    except BaseException as exc:  # the post's code may raise anything, SystemExit included
        if raises and _exc_matches(exc, raises):
            return {"status": "passed", "raised": f"{type(exc).__name__}: {exc}"}
        return {
            "status": "failed",
            "error": _describe(exc, rel, block["line"], memory),
            "fatal": isinstance(exc, (SystemExit, MemoryError)),
        }
    if raises and not block.get("xfail"):  # an xfail that ran to its end passes (pytest: XPASS)
        message = f"expected {raises} to be raised, but the block ran to its end"
        return {"status": "failed", "error": _error("DidNotRaise", message, block["line"])}
    return {"status": "passed", "value": value} if value else {"status": "passed"}


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
        detail = f">>> {example.source.strip()}\n" + "".join(traceback.format_exception_only(type(exc), exc))
        self.collected.append(_error(type(exc).__name__, message, line, detail))


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
        more = len(runner.collected) - 1
        first["traceback"] += f"\n(and {more} more failing examples)" if more else ""
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
    scopes: dict[str, Any] = {}  # phmdoctest's: the setup block, the last local namespace, the sessions' own
    for block in job["blocks"]:
        result: dict[str, Any]
        if stop is not None:
            result = {"status": "not run", "reason": stop}
        elif block.get("refused"):
            result = {"status": "failed", "error": _error("Refused", block["refused"], block["line"])}
        elif block.get("skip") or _skipped(block, ns):
            result = {"status": "skipped"}
        elif block["kind"] == "clear":
            result = {"status": "passed"} if _clear(ns, job["rel"]) else {}
        else:
            result = _run_block(block, _scope(block, ns, scopes, job), job)
            ns.update(scopes["share"] if block.get("scope") == "share" else {})  # phmdoctest-share-names
            scopes.update({"setup": block} if block.get("scope") == "setup" else {})
            if result.get("fatal") or (
                result["status"] == "failed"
                and not block.get("scope")  # a convention's blocks are checked one by one, as its tool does
                and result["error"]["type"] not in ("OutputMismatch", "DidNotRaise", "OutputTooLarge")
            ):
                stop = f"an earlier block (line {block['line']}) failed"
        if block.get("clear_after") and result["status"] == "passed":
            _clear(ns, job["rel"])
        result["index"] = block["index"]
        out.write(json.dumps(result) + "\n")
        out.flush()
        if result.get("fatal"):
            break


def _skipped(block: dict[str, Any], ns: dict[str, Any]) -> bool:
    """A convention's skip: its `importorskip` module is missing, or its `skipif` is true (false if it raises)."""
    try:
        if block.get("importorskip"):
            __import__(block["importorskip"])
        return bool(block.get("skipif") and eval(block["skipif"], {**ns, "sys": sys}))
    except ImportError:
        return bool(block.get("importorskip"))
    except Exception:
        return False


def _clear(ns: dict[str, Any], rel: str) -> dict[str, Any]:
    """The names defined so far forgotten (Sybil's clear-namespace, phmdoctest-clear-names)."""
    ns.clear()
    ns.update({"__name__": "__main__", "__file__": rel})
    return ns


def _scope(block: dict[str, Any], ns: dict[str, Any], scopes: dict[str, Any], job: dict[str, Any]) -> dict[str, Any]:
    """A convention's namespaces: pytest-codeblocks' blocks each their own; phmdoctest's code blocks a copy of the
    post's (setup and share-names blocks add to it), its sessions a copy of their own (the setup run again)."""
    scope = block.get("scope") or "module"
    if scope == "session" and "session" not in scopes:
        scopes["session"] = _clear({}, job["rel"])
        if "setup" in scopes:
            _run_block(scopes["setup"], scopes["session"], job)
    base = {"fresh": _clear({}, job["rel"]), "session": scopes.get("session")}.get(scope) or ns
    scopes[scope] = dict(base) if scope in ("local", "share", "session") else base
    result: dict[str, Any] = scopes[scope]
    return result


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
    how = block.get("compare") or ""  # exact: phmdoctest's _phm_compare_exact, every line as printed, no more
    norm = {"exact": lambda t: "\n".join(t.splitlines()), "nospace": lambda t: re.sub(r"\s+", "", t)}.get(how)
    want, got = ((norm or _normalise)(t) for t in (block["expected"], stdout))
    if want == got:
        return None
    import difflib

    before, after = ((text + "\n").splitlines(True) for text in (want, got))
    diff = "".join(difflib.unified_diff(before, after, f"expected (line {block['expected_line']})", "actual output"))
    message = "the block printed something else than its output block says"
    return _error("OutputMismatch", message, block["expected_line"], diff)


def _shutdown_ray() -> None:
    ray = sys.modules.get("ray")
    try:
        if ray is not None and ray.is_initialized():
            ray.shutdown()
    except Exception:
        pass


if __name__ == "__main__":
    # run as a script: the import path starts at the run's directory (as with -m), not at this file's folder
    sys.path[0] = os.getcwd()
    sys.exit(main(sys.argv[1]))
