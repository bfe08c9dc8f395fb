"""Where posts run: a local pool of threads each waiting on one child process, or a Ray cluster."""

from __future__ import annotations

import functools
import os
import re
import socket
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any

from site_builder.errors import SiteError
from site_builder.execute.job import Job
from site_builder.execute.options import ExecOptions
from site_builder.execute.report import Progress
from site_builder.execute.results import PostRun
from site_builder.execute.sandbox import Children
from site_builder.execute.session import run_job
from site_builder.execute.settings import DEFAULT_MEMORY

Runner = Callable[[Job], PostRun]
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


def run_all(jobs: list[Job], options: ExecOptions, progress: Progress, done: Callable[[Job, PostRun], None]) -> None:
    """Run the jobs, calling `done` with each run in the jobs' order as it is known (so an interrupted build keeps
    the runs that finished). Interrupted (Ctrl-C), the running posts' processes are stopped at once."""
    children = Children()
    ray = options.executor == "ray"
    runner: Runner = _ray_runner(options.ray_address) if ray else functools.partial(run_job, children=children)
    pool = ThreadPoolExecutor(max_workers=min(len(jobs) if ray else parallel_slots(jobs), len(jobs)))
    futures = [pool.submit(progress.track, job.rel, runner, job) for job in jobs]
    try:
        for job, future in zip(jobs, futures, strict=True):
            done(job, future.result())
    except BaseException:
        children.stop_all()
        pool.shutdown(wait=False, cancel_futures=True)
        if not ray:  # the stopped posts' threads remove their run directories (a Ray task may not return)
            wait(futures, timeout=STOP_WAIT)
        raise
    pool.shutdown()


def _probe_ray_address(address: str | None) -> None:
    """A HOST:PORT that nothing answers on is one error line: ray.init would wait for it forever."""
    m = re.fullmatch(r"\[?([^\s/\]]+?)\]?:(\d+)", address or "")
    if not m:
        return  # "auto", ray://..., or none (a local cluster): left to Ray
    try:
        socket.create_connection((m.group(1), int(m.group(2))), timeout=5).close()
    except OSError as exc:
        raise SiteError(f"cannot reach the Ray cluster at --ray-address {address}: {exc.strerror or exc}") from None


def _ray_init(ray: Any, address: str | None) -> None:
    _probe_ray_address(address)
    try:
        ray.init(
            address=address,
            ignore_reinit_error=True,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}},
        )
    except (ConnectionError, RuntimeError, ray.exceptions.RayError) as exc:  # RayError: AuthenticationError
        hint = " (a cluster with token authentication needs RAY_AUTH_MODE=token)" if "uthenticat" in str(exc) else ""
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        where = address or "a new local cluster"
        raise SiteError(f"cannot connect to the Ray cluster at {where}: {first}{hint}") from None


def _ray_runner(address: str | None) -> Runner:
    """Run each post as a Ray task with memory= its cap, on an existing cluster (or a local one)."""
    try:
        import ray
    except ImportError:
        raise SiteError("--executor ray needs Ray: pip install 'site-builder[ray]'") from None
    if not ray.is_initialized():
        _ray_init(ray, address)
    remote = ray.remote(num_cpus=1)(run_job)

    def run(job: Job) -> PostRun:
        result: PostRun = ray.get(remote.options(memory=job.settings.memory).remote(job))
        return result

    return run
