"""`--executor ray`: posts run as Ray tasks, driven from a process of its own so that Ray never hangs the build.

The build process never imports Ray. It checks that the address answers like a Ray head (gRPC), then starts a
driver process (`executors.driver_main`, in a session of its own) that connects and runs the posts it is sent,
and talks to it through a pipe. Whatever Ray does (a connection that waits forever, a cluster that goes away, a
driver that Ray ends itself 60 s after its head is gone), the build process can stop the driver and fail the posts
that had not finished:

- no Ray answer on the address within PROBE_WAIT, no connection within CONNECT_WAIT: one error line;
- a cluster that asks for a token the driver does not have: one error line saying how to give one;
- a post whose memory cap is more than every node has: that post fails at once (Ray would wait for a node);
- the head unreachable for LOST_AFTER seconds, or the driver gone: the posts not finished fail.

Run directories: an attempt of post number N works in `<tmp>/site-builder-ray-<build>/N/` on its node (`tmp`:
the node's temporary folder). A retry (Ray runs a task again when its worker dies) first stops the processes
still working in the killed attempt's folder and removes it; at the end the driver removes the build's folder on
every live node."""

from __future__ import annotations

import importlib.util
import json
import os
import pickle
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import IO, Any

from site_builder.errors import SiteError
from site_builder.execute.job import Job
from site_builder.execute.results import BlockResult, PostRun, error_info

PROBE_WAIT = 5.0  # seconds for the address to answer a gRPC (HTTP/2) hello
CONNECT_WAIT = 60.0  # seconds for the driver to connect (Ray gives up on a cluster that refuses it after ~20 s)
LOST_AFTER = 10.0  # seconds the head may not answer before the cluster counts as lost
CLOSE_WAIT = 20.0  # seconds the driver gets to clean up and disconnect at the end
CLEAN_WAIT = 10.0  # seconds the driver waits for the run directories of every node to be removed
BUILD_PREFIX = "site-builder-ray-"
TOKEN_DOCS = "https://docs.ray.io/en/latest/ray-security/token-auth.html"
_H2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])  # preface, empty SETTINGS
_AUTH_MARKS = (b"InvalidAuthToken", b"Unauthenticated")  # what Ray logs while it retries a refused token
_DRIVER = "from site_builder.execute.executors import driver_main; driver_main()"


def host_port(address: str) -> tuple[str, int] | None:
    """HOST and PORT of `HOST:PORT`, `[V6]:PORT` or `ray://HOST:PORT`; None for anything else ("auto")."""
    m = re.fullmatch(r"(?:ray://)?\[?([^\s/\]]+?)\]?:(\d+)", address)
    return (m.group(1), int(m.group(2))) if m else None


def probe(address: str | None) -> None:
    """A HOST:PORT (or ray://HOST:PORT) that nothing answers on, or that is no gRPC server, is one error line:
    ray.init would wait for it forever."""
    where = host_port(address or "")
    if where is None:
        return  # "auto", or none (a local cluster): left to Ray
    try:
        sock = socket.create_connection(where, timeout=PROBE_WAIT)
    except OSError as exc:
        raise SiteError(f"cannot reach the Ray cluster at --ray-address {address}: {exc.strerror or exc}") from None
    with sock:
        if os.environ.get("RAY_USE_TLS", "").lower() in ("1", "true"):
            return  # a TLS server answers no plain HTTP/2 hello
        answer = b""
        try:
            sock.sendall(_H2_HELLO)
            while len(answer) < 9 and (chunk := sock.recv(9 - len(answer))):
                answer += chunk
        except OSError:
            pass
    if len(answer) < 9 or answer[3] != 4:  # a gRPC server's first frame is SETTINGS (type 4)
        raise SiteError(
            f"--ray-address {address} is not a Ray cluster: it accepts connections but gave no Ray (gRPC) "
            f"answer within {PROBE_WAIT:g} s"
        )


def gib(n: float) -> str:
    return f"{n / (1 << 30):.1f} GiB"


def failed_run(job: Job, kind: str, message: str, key: str = "") -> PostRun:
    """A post that did not run to its end: every block not run, one post-level failure (at front matter `key`'s
    line, or the first block's)."""
    line = job.lines.get(key) or job.first_line
    blocks = [BlockResult(b.index, b.line, "not run") for b in job.blocks]
    return PostRun(job.rel, job.key, blocks, error_info(kind, message, line))


def send_message(fh: IO[bytes], message: Any, lock: threading.Lock | None = None) -> None:
    data = pickle.dumps(message)
    with lock or threading.Lock():
        fh.write(struct.pack("!Q", len(data)) + data)
        fh.flush()


def recv_message(fh: IO[bytes]) -> Any:
    """One message from a process this module started (pickle: it is our own); EOFError when the pipe is closed."""

    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = fh.read(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    return pickle.loads(exactly(struct.unpack("!Q", exactly(8))[0]))


@dataclass
class _Waiting:
    job: Job
    done: threading.Event = field(default_factory=threading.Event)
    run: PostRun | None = None


class RayCluster:
    """The build's connection to a Ray cluster: a driver process, the posts sent to it, and a watch on the head."""

    def __init__(self, address: str | None):
        self.name = f"the Ray cluster at {address}" if address else "the local Ray cluster"
        if importlib.util.find_spec("ray") is None:
            raise SiteError("--executor ray needs Ray: pip install 'site-builder[ray]'")
        probe(address or os.environ.get("RAY_ADDRESS"))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        if "RAY_AUTH_MODE" not in env and ("RAY_AUTH_TOKEN" in env or "RAY_AUTH_TOKEN_PATH" in env):
            env["RAY_AUTH_MODE"] = "token"  # a token given is a token to use
        self.token_given = env.get("RAY_AUTH_MODE") == "token"
        # what the driver and Ray print: read back on failure, closed with the cluster
        self.log = tempfile.TemporaryFile(prefix="site-builder-ray-driver-")  # noqa: SIM115
        build = f"{os.getpid()}-{os.urandom(4).hex()}"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _DRIVER, json.dumps([address, build])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=env,
            bufsize=0,
            start_new_session=True,  # Ctrl-C reaches the build, which stops the driver; stopped as one group
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.inp, self.out = self.proc.stdin, self.proc.stdout
        self.lock, self.send_lock, self.stopped = threading.Lock(), threading.Lock(), threading.Event()
        self.waiting: dict[int, _Waiting] = {}  # posts sent and not finished, by number
        self.sent = 0
        self.lost = ""  # why the cluster is gone, once it is
        try:
            _, gcs, self.nodes = self._connected()
        except BaseException:
            self._kill()
            self.log.close()
            raise
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._watch, args=(gcs,), daemon=True).start()

    def _log_text(self) -> bytes:
        return os.pread(self.log.fileno(), 1 << 20, max(0, os.fstat(self.log.fileno()).st_size - (1 << 20)))

    def _last_log_line(self) -> str:
        try:
            lines = [line for line in self._log_text().decode("utf-8", "replace").splitlines() if line.strip()]
        except (OSError, ValueError):  # closed: the build is over
            lines = []
        return lines[-1].strip()[:300] if lines else "no output"

    def _token_error(self) -> SiteError:
        if self.token_given:
            return SiteError(
                f"{self.name} refused the token it was given (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or "
                f"~/.ray/auth_token): is it the cluster's? (see {TOKEN_DOCS})"
            )
        return SiteError(
            f"{self.name} asks for a token: set RAY_AUTH_TOKEN to the cluster's token (or RAY_AUTH_TOKEN_PATH to "
            f"a file holding it; see {TOKEN_DOCS})"
        )

    def _connected(self) -> tuple[str, str, list[tuple[float, float]]]:
        """Wait for the driver's ("ready", gcs address, [(CPUs, memory) per live node]), at most CONNECT_WAIT."""
        deadline = time.monotonic() + CONNECT_WAIT
        while not select.select([self.out], [], [], 0.2)[0]:
            if any(mark in self._log_text() for mark in _AUTH_MARKS):
                raise self._token_error()  # Ray would retry for 20 s before it says so
            if time.monotonic() > deadline:
                raise SiteError(f"cannot connect to {self.name}: no connection within {CONNECT_WAIT:g} s")
        try:
            message = recv_message(self.out)
        except EOFError:
            self.proc.wait()
            detail = f"the Ray driver exited with status {self.proc.returncode}: {self._last_log_line()}"
            raise SiteError(f"cannot connect to {self.name}: {detail}") from None
        if message[0] == "token":
            raise self._token_error()
        if message[0] == "error":
            raise SiteError(f"cannot connect to {self.name}: {message[1]}")
        return message  # type: ignore[no-any-return]

    def _refusal(self, job: Job) -> PostRun | None:
        """The post's failure when no node of the cluster can run it (Ray would wait for one for ever)."""
        usable = [memory for cpus, memory in self.nodes if cpus >= 1]
        if not usable:
            return failed_run(job, "RayResources", f"{self.name} has no node with a CPU to run the post on")
        if job.settings.memory <= max(usable):
            return None
        message = f"needs {gib(job.settings.memory)} of memory; the largest node of {self.name} has {gib(max(usable))}"
        return failed_run(job, "MemoryLimit", message, "exec.memory")

    def run(self, job: Job) -> PostRun:
        """Run one post on the cluster (the executors' Runner); a lost cluster fails it."""
        refused = self._refusal(job)
        if refused is not None:
            return refused
        waiting = _Waiting(job)
        with self.lock:
            if self.lost:
                return self._lost_run(job)
            self.sent += 1
            number = self.sent
            self.waiting[number] = waiting
        try:
            send_message(self.inp, ("run", number, job), self.send_lock)
        except OSError:
            self._lose("the Ray driver process is gone")
        waiting.done.wait()
        assert waiting.run is not None
        return waiting.run

    def _lost_run(self, job: Job) -> PostRun:
        return failed_run(job, "RayClusterLost", f"{self.name} lost ({self.lost}); the post did not finish")

    def _lose(self, why: str) -> None:
        """The cluster is gone: fail every post sent and not finished, and stop the driver."""
        with self.lock:
            self.lost = self.lost or why
            waiting, self.waiting = list(self.waiting.values()), {}
        for w in waiting:
            w.run = self._lost_run(w.job)
            w.done.set()
        self._kill()

    def _read(self) -> None:
        """The driver's answers: ("done", number, run)."""
        while True:
            try:
                _, number, run = recv_message(self.out)
            except (EOFError, OSError, ValueError):
                break
            with self.lock:
                waiting = self.waiting.pop(number, None)
            if waiting is not None:
                waiting.run = run
                waiting.done.set()
        if not self.stopped.is_set():
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            self._lose(f"the Ray driver process exited with status {self.proc.returncode}: {self._last_log_line()}")

    def _watch(self, gcs: str) -> None:
        """Connect to the head every second; LOST_AFTER seconds without an answer and the cluster is lost."""
        where = host_port(gcs)
        if where is None:
            return
        answered = time.monotonic()
        while not self.stopped.wait(1.0):
            try:
                socket.create_connection(where, timeout=2).close()
                answered = time.monotonic()
            except OSError:
                if time.monotonic() - answered >= LOST_AFTER:
                    self._lose(f"its head at {gcs} has not answered for {LOST_AFTER:g} s")
                    return

    def close(self, cancel: bool = False) -> None:
        """Disconnect: the driver removes the run directories and leaves; `cancel`: stop the running posts first."""
        self.stopped.set()
        try:
            if not self.lost:
                send_message(self.inp, ("stop", cancel), self.send_lock)
                self.proc.wait(timeout=CLOSE_WAIT)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:  # even on a second Ctrl-C
            self._lose("the build stopped")
            self.log.close()

    def _kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
