"""Where posts run: a local pool of threads each waiting on one child process, or a Ray cluster (the build's side
of it is `raycluster`; the driver process it starts and the Ray task that runs one post are here)."""

from __future__ import annotations

import functools
import importlib
import json
import os
import queue
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from typing import IO, Any

from site_builder.execute.job import Job
from site_builder.execute.options import ExecOptions
from site_builder.execute.raycluster import BUILD_PREFIX, CLEAN_WAIT, RayCluster, failed_run, recv_message, send_message
from site_builder.execute.report import Progress
from site_builder.execute.results import PostRun
from site_builder.execute.sandbox import Children
from site_builder.execute.session import run_job
from site_builder.execute.settings import DEFAULT_MEMORY
from site_builder.execute.template import Template, start_template
from site_builder.util.private import keep_private

Runner = Callable[[Job], PostRun]
Started = tuple[Template | None, list[str]]  # a template (or None: posts start their own interpreter), its notes
STOP_WAIT = 3.0  # seconds an interrupted run waits for its stopped posts to clean up


def available_memory() -> int:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def parallel_slots(jobs: list[Job]) -> int:
    """Posts run at once: min(cores, available memory // the largest post's cap), at least 1."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    largest = max((j.settings.memory for j in jobs), default=DEFAULT_MEMORY)
    return max(1, min(cores, available_memory() // max(largest, 1)))


def run_all(
    jobs: list[Job],
    options: ExecOptions,
    progress: Progress,
    done: Callable[[Job, PostRun], None],
    preload: list[str] | None = None,
    started: Started | None = None,
) -> list[str]:
    """Run the jobs, calling `done` with each run in the jobs' order as it is known (so an interrupted build keeps
    the runs that finished). Interrupted (Ctrl-C), the running posts' processes are stopped at once. Locally, each
    post is a fork of one template process with the runner and the `preload` modules imported (template.py), or
    of the one `started` (start_template's answer, for these posts' site: the pytest plugin starts it early).
    Returns what the build should be told (a module that failed to preload)."""
    children = Children()
    cluster = RayCluster(options.ray_address) if options.executor == "ray" else None
    first = jobs[0]
    if cluster is not None:
        started = (None, [])
    elif started is None:
        started = start_template(preload or [], first.site_root or first.source_dir, first.env)
    template, notes = started
    try:
        local = functools.partial(run_job, children=children, template=template)
        _run_pool(jobs, cluster, progress, done, local, children)
    finally:
        if template is not None:
            template.close()
    return notes


def _run_pool(
    jobs: list[Job],
    cluster: RayCluster | None,
    progress: Progress,
    done: Callable[[Job, PostRun], None],
    local: Runner,
    children: Children,
) -> None:
    runner: Runner = cluster.run if cluster else local
    pool = ThreadPoolExecutor(max_workers=min(len(jobs) if cluster else parallel_slots(jobs), len(jobs)))
    futures = [pool.submit(progress.track, job.rel, runner, job) for job in jobs]
    try:
        for job, future in zip(jobs, futures, strict=True):
            done(job, future.result())
    except BaseException:
        children.stop_all()
        pool.shutdown(wait=False, cancel_futures=True)
        if cluster is not None:  # the driver kills the tasks, then removes their run directories on every node
            cluster.close(cancel=True)
        else:  # the stopped posts' threads remove their run directories
            wait(futures, timeout=STOP_WAIT)
        raise
    pool.shutdown()
    if cluster is not None:
        cluster.close()


def driver_main() -> None:
    """The Ray driver process a RayCluster starts: connect, answer ("ready", head address, [(CPUs, memory) per live
    node]) or why not, then run the posts the build sends until it says stop, and clean up."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # the answers go on the old stdout; what Ray prints goes to the build's log of the driver
    address, build = json.loads(sys.argv[1])
    keep_private()  # it has the build's environment (a Ray token): no post reads it
    try:
        ray: Any = importlib.import_module("ray")
        path = os.environ.get("PYTHONPATH", "")  # the build's sys.path: workers import site_builder as it does
        ray.init(address=address, log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": path}})
        try:
            gcs = ray.get_runtime_context().gcs_address
        except Exception:  # Ray Client (ray://): its server is what there is to watch
            gcs = address or ""
        nodes = [(n["Resources"].get("CPU", 0.0), n["Resources"].get("memory", 0.0)) for n in ray.nodes() if n["Alive"]]
    except BaseException as exc:
        send_message(out, _connect_error(exc))
        return
    send_message(out, ("ready", gcs, nodes))
    _serve(ray, build, sys.stdin.buffer, out)
    _clean_nodes(ray, build)
    ray.shutdown()


def _connect_error(exc: BaseException) -> tuple[str, ...]:
    """("token",) when the cluster refused to talk without (the right) token, else ("error", first line)."""
    chain: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and len(chain) < 10:
        chain.append(e)
        e = e.__cause__ or e.__context__
    if any(type(e).__name__ == "AuthenticationError" or "uthenticat" in str(e) for e in chain):
        return ("token",)
    return ("error", (str(exc).strip().splitlines() or [type(exc).__name__])[0])


def _inbox(inp: IO[bytes], messages: queue.Queue[Any]) -> None:
    while True:
        try:
            messages.put(recv_message(inp))
        except (EOFError, OSError, ValueError):
            messages.put(("stop", True))  # the build is gone: stop what runs
            return


def _serve(ray: Any, build: str, inp: IO[bytes], out: IO[bytes]) -> None:
    """Run the posts the build sends, ("run", number, job), answering ("done", number, run) as each finishes,
    until ("stop", cancel); `cancel`: the running posts' workers are killed (_clean_nodes then stops what they
    started)."""
    messages: queue.Queue[Any] = queue.Queue()
    threading.Thread(target=_inbox, args=(inp, messages), daemon=True).start()
    task = ray.remote(num_cpus=1)(_task)  # a worker that dies is replaced and the post run again (max_retries)
    running: dict[Any, tuple[int, Job]] = {}
    while True:
        try:
            message = messages.get(timeout=0.2 if running else None)
        except queue.Empty:
            message = ("wait",)
        if message[0] == "stop":
            if message[1] and running:
                for ref in running:
                    ray.cancel(ref, force=True)  # a KeyboardInterrupt (force=False) does not reach a running task
                ray.wait(list(running), num_returns=len(running), timeout=STOP_WAIT)
            return
        if message[0] == "run":
            _, number, job = message
            running[task.options(memory=job.settings.memory).remote(job, build, number)] = (number, job)
        if running:
            ready, _ = ray.wait(list(running), num_returns=len(running), timeout=0)
            for ref in ready:
                number, job = running.pop(ref)
                send_message(out, ("done", number, _outcome(ray, ref, job)))


def _outcome(ray: Any, ref: Any, job: Job) -> PostRun:
    try:
        run: PostRun = ray.get(ref)
        return run
    except ray.exceptions.RayError as exc:
        cause = getattr(exc, "cause", None)  # RayTaskError: what the task raised
        what = f"{type(cause).__name__}: {cause}" if isinstance(cause, BaseException) else str(exc)
        first = (what.strip().splitlines() or [type(exc).__name__])[0]
        return failed_run(job, "RayError", f"Ray could not run the post ({type(exc).__name__}): {first}")


def _task(job: Job, build: str, number: int) -> PostRun:
    """One attempt at one post, on a Ray worker: its run directory is made in <tmp>/site-builder-ray-<build>/<number>/
    (this worker runs one task at a time), where a retry first stops and removes what a killed attempt left."""
    keep_private()  # the worker's environment (the node's) and memory stay out of the post's reach
    here = os.path.join(tempfile.gettempdir(), BUILD_PREFIX + build, str(number))
    again = _clear(here)
    os.makedirs(here, exist_ok=True)
    saved, tempfile.tempdir = tempfile.tempdir, here
    try:
        run = run_job(job)
    finally:
        tempfile.tempdir = saved
        _clear(here)
    if again:
        line = job.first_line
        run.warnings.append(f"{job.rel}:{line}: the Ray worker running the post died, and Ray ran the post again")
    return run


def _clear(path: str) -> bool:
    """Stop the processes working in `path` (a killed attempt's post, whose worker can no longer stop it) and
    remove it; whether it was there."""
    if not os.path.isdir(path):
        return False
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        pids = []  # no /proc: the folder alone is removed
    for pid in pids:
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            if cwd == path or cwd.startswith(path + os.sep):
                pgid = os.getpgid(int(pid))  # the post's own group (never this worker's)
                if pgid != os.getpgrp():
                    os.killpg(pgid, signal.SIGKILL)
                os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
    shutil.rmtree(path, ignore_errors=True)
    return True


def _remove_build(build: str) -> None:
    _clear(os.path.join(tempfile.gettempdir(), BUILD_PREFIX + build))


def _clean_nodes(ray: Any, build: str) -> None:
    """Remove the build's run directories on every live node (what attempts killed with their worker left)."""
    try:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        remove = ray.remote(num_cpus=0, max_retries=0)(_remove_build)
        refs = [
            remove.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote(build)
            for n in ray.nodes()
            if n["Alive"]
        ]
        ray.wait(refs, num_returns=len(refs), timeout=CLEAN_WAIT)
    except Exception:
        pass  # what is left is in the nodes' temporary folders, named for the build
    _remove_build(build)
