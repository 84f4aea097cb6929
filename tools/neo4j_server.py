"""Start a real Neo4j Community server without Docker, from Maven Central jars.

Two release lines: 5.26 (the default, what most Graphiti users run; Java 17+) and 2026 (the
newest Community release Maven Central serves, for its in-index filtered vector search;
Java 21+). The server is the small Java program in ``tools/neo4j-launcher`` (embedded DBMS +
Bolt, auth off), built once per line into its own folder. This module builds it with Maven
when needed and runs it as a child process. Stdlib only, so it can be imported by test
fixtures and CI scripts before any project dependency is installed.

    from tools.neo4j_server import Neo4jServer   # or put tools/ on sys.path
    with Neo4jServer() as server:                 # Neo4jServer(line="2026") for the newer one
        driver = neo4j.GraphDatabase.driver(server.uri, auth=("neo4j", "any"))

Command line (for developers)::

    python tools/neo4j_server.py               # build if needed, start, print URI, wait for Ctrl-C
    python tools/neo4j_server.py --line 2026   # the same with Neo4j 2026
    python tools/neo4j_server.py --build-only  # just build the launcher

Environment: ``JAVA_HOME`` (optional) picks the JDK of the 5.26 line (17+);
``NEO4J_2026_JAVA_HOME`` the JDK of the 2026 line (21+; default: ``JAVA_HOME`` when it is 21 or
newer, else the Temurin 25 JDK at ``/usr/lib/jvm/temurin-25-jdk-amd64``); ``MVN`` (optional)
the Maven command.
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
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

LAUNCHER_DIR = Path(__file__).resolve().parent / "neo4j-launcher"
MAIN_CLASS = "frgraph.Neo4jLauncher"
#: Where the 2026 line's JDK is looked for when neither NEO4J_2026_JAVA_HOME nor a JAVA_HOME
#: of Java 21+ names one.
TEMURIN_25_HOME = Path("/usr/lib/jvm/temurin-25-jdk-amd64")


@dataclass(frozen=True)
class Line:
    """One Neo4j release line: the version built, the Java it needs, where its build lives."""

    name: str
    neo4j_version: str
    java_release: int

    @property
    def target_dir(self) -> Path:
        return LAUNCHER_DIR / ("target" if self.name == "5.26" else f"target-{self.name}")

    @property
    def classes_dir(self) -> Path:
        return self.target_dir / "classes"

    @property
    def dependency_dir(self) -> Path:
        return self.target_dir / "dependency"

    @property
    def main_class_file(self) -> Path:
        return self.classes_dir / "frgraph" / "Neo4jLauncher.class"

    @property
    def build_stamp(self) -> Path:
        # Written after a successful build. Compared with the sources' mtimes: the class file
        # itself is not rewritten when only pom.xml changes, so it can't serve as the build time.
        return self.target_dir / ".build-stamp"


#: 5.26.x is the last line that runs on Java 17; 2026.08.1 was the newest Community release
#: on Maven Central on 2026-12-03 (in-index filtered vector search since 2026.01).
LINES: dict[str, Line] = {
    "5.26": Line("5.26", "5.26.30", 17),
    "2026": Line("2026", "2026.08.1", 21),
}
DEFAULT_LINE = "5.26"

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


def _line(name: str) -> Line:
    try:
        return LINES[name]
    except KeyError:
        raise ValueError(f"line must be one of {', '.join(LINES)}, got {name!r}") from None


def _is_built(line: Line) -> bool:
    """True when the launcher and its runtime jars were built after the last source change."""
    if not line.build_stamp.is_file() or not line.main_class_file.is_file():
        return False
    if not any(line.dependency_dir.glob("neo4j-bolt-*.jar")):
        return False
    built_at = line.build_stamp.stat().st_mtime
    sources = [LAUNCHER_DIR / "pom.xml", *LAUNCHER_DIR.joinpath("src").rglob("*.java")]
    return all(src.stat().st_mtime <= built_at for src in sources)


@contextlib.contextmanager
def _build_lock(line: Line) -> Iterator[None]:
    # Parallel test workers (pytest-xdist) may all try to build at once; serialise them.
    line.target_dir.mkdir(parents=True, exist_ok=True)
    with open(line.target_dir / ".build.lock", "w") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


def build_launcher(line_name: str = DEFAULT_LINE) -> Path:
    """Build the launcher of ``line_name`` with Maven unless it is already built; return its
    build folder.

    The first build of a line downloads ~150-170 MB into ~/.m2; later calls return at once.
    Raises RuntimeError (with the tail of Maven's output) when the build fails.
    """
    line = _line(line_name)
    if _is_built(line):
        return line.target_dir
    with _build_lock(line):
        if _is_built(line):  # another process built it while we waited for the lock
            return line.target_dir
        mvn = os.environ.get("MVN") or shutil.which("mvn")
        if not mvn:
            raise RuntimeError(
                "Maven ('mvn') not found on PATH; needed to build the Neo4j launcher"
            )
        # Start from an empty jar folder: after a version bump the old jars would otherwise stay
        # on the classpath next to the new ones. Running JVMs keep their open (unlinked) jars.
        line.build_stamp.unlink(missing_ok=True)
        shutil.rmtree(line.dependency_dir, ignore_errors=True)
        # The pom binds dependency:copy-dependencies to `package` -> <build dir>/dependency/*.jar.
        cmd = [mvn, "-q", "-B", "-Dstyle.color=never",
               f"-Dneo4j.version={line.neo4j_version}",
               f"-Dmaven.compiler.release={line.java_release}",
               f"-Dlauncher.buildDirectory={line.target_dir}", "package"]
        env = {**os.environ, "JAVA_HOME": _java_home(line)} if line.java_release > 17 \
            else None
        proc = subprocess.run(
            cmd, cwd=LAUNCHER_DIR, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=env,
        )
        if proc.returncode == 0 and line.main_class_file.is_file():
            line.build_stamp.touch()
        if not _is_built(line):
            output = _ANSI_ESCAPE.sub("", proc.stdout)  # Maven 3.8 emits some even when told not to
            tail = "\n".join(output.splitlines()[-60:])
            raise RuntimeError(
                f"building the Neo4j {line.name} launcher failed ({' '.join(cmd)} in "
                f"{LAUNCHER_DIR}, exit {proc.returncode}):\n{tail}"
            )
    return line.target_dir


def _java_major(java_home: Path) -> int:
    """The major version a JDK's ``release`` file declares (0 when unreadable)."""
    try:
        text = (java_home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0
    found = re.search(r'^JAVA_VERSION="(\d+)', text, re.MULTILINE)
    return int(found.group(1)) if found else 0


def _java_home(line: Line) -> str:
    """The JDK folder for a line that needs a Java newer than 17 (see the module docstring)."""
    named = os.environ.get("NEO4J_2026_JAVA_HOME")
    candidates = [Path(named)] if named else []
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]))
    candidates.append(TEMURIN_25_HOME)
    for home in candidates:
        if (home / "bin" / "java").is_file() and _java_major(home) >= line.java_release:
            return str(home)
    raise RuntimeError(
        f"Neo4j {line.name} needs Java {line.java_release}+: set NEO4J_2026_JAVA_HOME to a JDK "
        f"of that version (tried {', '.join(str(c) for c in candidates)})")


def _java_executable(line: Line) -> str:
    if line.java_release > 17:
        return str(Path(_java_home(line)) / "bin" / "java")
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
        line: str = DEFAULT_LINE,
    ) -> None:
        if heap_mib < 512 or page_cache_mib < 16:
            raise ValueError(f"heap_mib must be >= 512 and page_cache_mib >= 16, "
                             f"got {heap_mib} and {page_cache_mib}")
        self.line = _line(line)
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
        build_launcher(self.line.name)
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
        java = _java_executable(self.line)
        # java expands the '*'
        classpath = f"{self.line.classes_dir}{os.pathsep}{self.line.dependency_dir / '*'}"
        memory = [
            f"-Xmx{self.heap_mib}m",
            f"-Dfrgraph.pageCacheMiB={self.page_cache_mib}",
            # Running transactions may use about two thirds of the heap.
            f"-Dfrgraph.transactionMaxMiB={self.heap_mib * 2 // 3}",
        ]
        # Lucene's vector kernels use the Vector API when the JVM exposes it (Java 21+).
        vector_api = ["--add-modules=jdk.incubator.vector"] if self.line.java_release >= 21 \
            else []
        cmd = [java, *JVM_FLAGS, *vector_api, *memory, "-cp", classpath, MAIN_CLASS,
               str(self.home), str(port)]
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
    parser.add_argument("--line", choices=sorted(LINES), default=DEFAULT_LINE,
                        help=f"Neo4j release line (default {DEFAULT_LINE})")
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
        print(build_launcher(args.line))
        return 0

    def _interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # Treat SIGTERM like Ctrl-C so the server is stopped either way.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        server = Neo4jServer(home=args.home, port=args.port, heap_mib=args.heap,
                             page_cache_mib=args.page_cache, line=args.line)
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
