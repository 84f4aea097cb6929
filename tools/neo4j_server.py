"""Start a real Neo4j Community 5.26 server without Docker, from Maven Central jars.

The server is the small Java program in ``tools/neo4j-launcher`` (embedded DBMS + Bolt, auth off).
This module builds it with Maven when needed and runs it as a child process. Stdlib only, so it
can be imported by test fixtures and CI scripts before any project dependency is installed.

    from tools.neo4j_server import Neo4jServer   # or put tools/ on sys.path
    with Neo4jServer() as server:
        driver = neo4j.GraphDatabase.driver(server.uri, auth=("neo4j", "any"))

Command line (for developers)::

    python tools/neo4j_server.py               # build if needed, start, print URI, wait for Ctrl-C
    python tools/neo4j_server.py --build-only  # just build the launcher

Environment: ``JAVA_HOME`` (optional) picks the JDK (17+); ``MVN`` (optional) the Maven command.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import fcntl
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO

LAUNCHER_DIR = Path(__file__).resolve().parent / "neo4j-launcher"
TARGET_DIR = LAUNCHER_DIR / "target"
CLASSES_DIR = TARGET_DIR / "classes"
DEPENDENCY_DIR = TARGET_DIR / "dependency"
MAIN_CLASS = "frgraph.Neo4jLauncher"
_MAIN_CLASS_FILE = CLASSES_DIR / "frgraph" / "Neo4jLauncher.class"
# Written after a successful build. Compared with the sources' mtimes: the class file itself is
# not rewritten when only pom.xml changes, so it can't serve as the build time.
_BUILD_STAMP = TARGET_DIR / ".build-stamp"

READY_PREFIX = "NEO4J_READY "
LOG_NAME = "neo4j-launcher.log"
DEFAULT_START_TIMEOUT = 180.0
DEFAULT_STOP_TIMEOUT = 30.0
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")

# Heap and page cache sized for tests; benchmarks on large stores raise both (--heap,
# --page-cache). The page cache lives off-heap. The --add-opens / netty flags are the ones
# Neo4j 5's own neo4j.conf passes to the JVM.
DEFAULT_HEAP_MIB = 1500
DEFAULT_PAGE_CACHE_MIB = 256
JVM_FLAGS: tuple[str, ...] = (
    "-Xms256m",
    "-XX:+UseG1GC",
    "-XX:+ExitOnOutOfMemoryError",
    "-XX:-OmitStackTraceInFastThrow",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dlog4j2.disable.jmx=true",
    # The launcher exits when its stdin pipe closes, i.e. when this Python process dies even by
    # SIGKILL, where neither stop() nor atexit can run.
    "-Dfrgraph.exitOnStdinEof=true",
)


def _is_built() -> bool:
    """True when the launcher and its runtime jars were built after the last source change."""
    if not _BUILD_STAMP.is_file() or not _MAIN_CLASS_FILE.is_file():
        return False
    if not any(DEPENDENCY_DIR.glob("neo4j-bolt-*.jar")):
        return False
    built_at = _BUILD_STAMP.stat().st_mtime
    sources = [LAUNCHER_DIR / "pom.xml", *LAUNCHER_DIR.joinpath("src").rglob("*.java")]
    return all(src.stat().st_mtime <= built_at for src in sources)


@contextlib.contextmanager
def _build_lock() -> Iterator[None]:
    # Parallel test workers (pytest-xdist) may all try to build at once; serialise them.
    TARGET_DIR.mkdir(parents=True, exist_ok=True)
    with open(TARGET_DIR / ".build.lock", "w") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


def build_launcher() -> Path:
    """Build the launcher with Maven unless it is already built; return the launcher directory.

    The first build downloads ~170 MB into ~/.m2; later calls return at once.
    Raises RuntimeError (with the tail of Maven's output) when the build fails.
    """
    if _is_built():
        return LAUNCHER_DIR
    with _build_lock():
        if _is_built():  # another process built it while we waited for the lock
            return LAUNCHER_DIR
        mvn = os.environ.get("MVN") or shutil.which("mvn")
        if not mvn:
            raise RuntimeError(
                "Maven ('mvn') not found on PATH; needed to build the Neo4j launcher"
            )
        # Start from an empty jar folder: after a version bump the old jars would otherwise stay
        # on the classpath next to the new ones. Running JVMs keep their open (unlinked) jars.
        _BUILD_STAMP.unlink(missing_ok=True)
        shutil.rmtree(DEPENDENCY_DIR, ignore_errors=True)
        # The pom binds dependency:copy-dependencies to `package` -> target/dependency/*.jar.
        cmd = [mvn, "-q", "-B", "-Dstyle.color=never", "package"]
        proc = subprocess.run(
            cmd, cwd=LAUNCHER_DIR, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        if proc.returncode == 0 and _MAIN_CLASS_FILE.is_file():
            _BUILD_STAMP.touch()
        if not _is_built():
            output = _ANSI_ESCAPE.sub("", proc.stdout)  # Maven 3.8 emits some even when told not to
            tail = "\n".join(output.splitlines()[-60:])
            raise RuntimeError(
                f"building the Neo4j launcher failed ({' '.join(cmd)} in {LAUNCHER_DIR}, "
                f"exit {proc.returncode}):\n{tail}"
            )
    return LAUNCHER_DIR


def _java_executable() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    java = shutil.which("java")
    if not java:
        raise RuntimeError("'java' (JDK 17+) not found on PATH and JAVA_HOME is not set")
    return java


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _tail(path: Path, lines: int = 60) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "<no log>"


class Neo4jServer:
    """A throwaway Neo4j server on 127.0.0.1 (Bolt only, auth disabled).

    ``home`` holds data and logs; when omitted a temporary directory is used and deleted on
    ``stop()``. ``port`` defaults to a free port. Any credentials work with the driver.
    """

    def __init__(
        self,
        home: Path | None = None,
        port: int | None = None,
        *,
        start_timeout: float = DEFAULT_START_TIMEOUT,
        heap_mib: int = DEFAULT_HEAP_MIB,
        page_cache_mib: int = DEFAULT_PAGE_CACHE_MIB,
    ) -> None:
        if heap_mib < 512 or page_cache_mib < 16:
            raise ValueError(f"heap_mib must be >= 512 and page_cache_mib >= 16, "
                             f"got {heap_mib} and {page_cache_mib}")
        self.heap_mib = heap_mib
        self.page_cache_mib = page_cache_mib
        self._owns_home = home is None
        self.home = Path(home) if home is not None else Path(tempfile.mkdtemp(prefix="neo4j-test-"))
        self._requested_port = port
        self.port: int | None = None
        self.start_timeout = start_timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._log_file: IO[bytes] | None = None

    @property
    def log_path(self) -> Path:
        return self.home / LOG_NAME

    @property
    def uri(self) -> str:
        if self._proc is None or self.port is None:
            raise RuntimeError("Neo4jServer is not running")
        return f"bolt://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def is_running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> Neo4jServer:
        """Build if needed, launch the JVM and block until Neo4j answers (or raise RuntimeError)."""
        if self._proc is not None:
            raise RuntimeError("Neo4jServer already started")
        build_launcher()
        self.home.mkdir(parents=True, exist_ok=True)
        # A port picked here can be grabbed by someone else before the JVM binds it; retry then.
        attempts = 1 if self._requested_port is not None else 3
        try:
            for attempt in range(1, attempts + 1):
                port = self._requested_port or _free_port()
                try:
                    self._launch(port)
                    return self
                except _PortInUse:
                    if attempt == attempts:
                        raise RuntimeError(
                            f"could not bind Neo4j Bolt port {port}; {self._log_report()}"
                        ) from None
        except BaseException:
            # Also on Ctrl-C while waiting. Deletes a temporary home; the error has the log tail.
            self.stop()
            raise
        raise AssertionError("unreachable")

    def _launch(self, port: int) -> None:
        java = _java_executable()
        classpath = f"{CLASSES_DIR}{os.pathsep}{DEPENDENCY_DIR / '*'}"  # java expands the '*'
        memory = [
            f"-Xmx{self.heap_mib}m",
            f"-Dfrgraph.pageCacheMiB={self.page_cache_mib}",
            # Running transactions may use about two thirds of the heap.
            f"-Dfrgraph.transactionMaxMiB={self.heap_mib * 2 // 3}",
        ]
        cmd = [java, *JVM_FLAGS, *memory, "-cp", classpath, MAIN_CLASS, str(self.home),
               str(port)]
        # Kept open for the child's lifetime, closed in stop().
        self._log_file = open(self.log_path, "ab")  # noqa: SIM115
        log_start = self._log_file.tell()  # the log is appended across restarts on one home
        self._proc = subprocess.Popen(
            cmd,
            cwd=self.home,
            stdin=subprocess.PIPE,  # never written; its EOF tells the JVM we are gone
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group, so a terminal's Ctrl-C doesn't reach it
        )
        self.port = port
        atexit.register(self.stop)  # never leave a stray JVM behind, even if the caller forgets

        ready_line = f"{READY_PREFIX}bolt://127.0.0.1:{port}"
        deadline = time.monotonic() + self.start_timeout
        while True:
            output = self._read_log_from(log_start)
            if ready_line in output.splitlines():
                return
            if self._proc.poll() is not None:
                code = self._proc.returncode
                self.stop(_keep_home=True)
                if "Address already in use" in output:
                    raise _PortInUse()
                raise RuntimeError(
                    f"Neo4j launcher exited with code {code} before ready; {self._log_report()}"
                )
            if time.monotonic() > deadline:
                self.stop(_keep_home=True)
                raise RuntimeError(
                    f"Neo4j not ready after {self.start_timeout:.0f}s; {self._log_report()}"
                )
            time.sleep(0.2)

    def _log_report(self) -> str:
        return f"{self.log_path}:\n{_tail(self.log_path)}"

    def _read_log_from(self, offset: int) -> str:
        with open(self.log_path, "rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", errors="replace")

    def stop(self, timeout: float = DEFAULT_STOP_TIMEOUT, *, _keep_home: bool = False) -> None:
        """SIGTERM the JVM (clean dbms.shutdown() via its hook), wait, then SIGKILL. Idempotent."""
        proc, self._proc = self._proc, None
        if proc is not None:
            atexit.unregister(self.stop)
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            if proc.stdin is not None:
                proc.stdin.close()
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        self.port = None
        if self._owns_home and not _keep_home:
            shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self) -> Neo4jServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class _PortInUse(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-only", action="store_true", help="build the launcher and exit")
    parser.add_argument("--port", type=int, default=None, help="Bolt port (default: a free one)")
    parser.add_argument(
        "--home", type=Path, default=None, help="data/log dir (default: a temporary one, deleted)"
    )
    parser.add_argument("--heap", type=int, default=DEFAULT_HEAP_MIB, metavar="MIB",
                        help=f"JVM heap in MiB (default {DEFAULT_HEAP_MIB})")
    parser.add_argument("--page-cache", type=int, default=DEFAULT_PAGE_CACHE_MIB, metavar="MIB",
                        help=f"Neo4j page cache in MiB (default {DEFAULT_PAGE_CACHE_MIB})")
    args = parser.parse_args(argv)

    if args.build_only:
        print(build_launcher())
        return 0

    def _interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # Treat SIGTERM like Ctrl-C so the server is stopped either way.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        server = Neo4jServer(home=args.home, port=args.port, heap_mib=args.heap,
                             page_cache_mib=args.page_cache)
    except ValueError as exc:
        parser.error(str(exc))
    with server:
        print(server.uri, flush=True)
        print(f"log: {server.log_path}; Ctrl-C to stop", file=sys.stderr, flush=True)
        try:
            while server.is_running():
                time.sleep(1)
            print("Neo4j exited unexpectedly; " + server._log_report(), file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("stopping Neo4j...", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
