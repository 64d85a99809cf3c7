"""A throwaway PostgreSQL cluster for the test run, so `make test` runs the Postgres tier on any machine where
the server binaries and pgvector are installed — without `.ci/run` or a DSN set by hand.

pytest-postgresql's process fixture would do most of this, but it runs `initdb` as the current user and
PostgreSQL refuses to run as root (CI runs as root), so the cluster is started here, as user `postgres` when
we are root. The cluster lives in a temporary folder, listens on 127.0.0.1 only with trust auth, and is
stopped and removed when the run ends.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

APT_HINT = "apt-get install postgresql-15 postgresql-15-pgvector (or build pgvector: .ci/setup-postgres.sh)"


@dataclass
class Cluster:
    dsn: str
    data: Path
    bindir: Path
    as_user: str | None

    def stop(self) -> None:
        _run(self, [str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])
        shutil.rmtree(self.data.parent, ignore_errors=True)


def find_server() -> tuple[Path | None, str]:
    """The bin folder of an installed PostgreSQL that has pgvector, or None and why not."""
    for bindir in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True) + _pg_config_bindir():
        bindir_path = Path(bindir)
        if not (bindir_path / "initdb").exists():
            continue
        major = bindir_path.parent.name
        if Path(f"/usr/share/postgresql/{major}/extension/vector.control").exists() or _has_vector(
            bindir_path
        ):
            return bindir_path, ""
        return None, f"PostgreSQL {major} is installed but pgvector is not ({APT_HINT})"
    return None, f"no PostgreSQL server binaries ({APT_HINT})"


def _pg_config_bindir() -> list[str]:
    exe = shutil.which("pg_config")
    if not exe:
        return []
    out = subprocess.run([exe, "--bindir"], capture_output=True, text=True, check=False).stdout.strip()
    return [out] if out else []


def _has_vector(bindir: Path) -> bool:
    pg_config = bindir / "pg_config"
    if not pg_config.exists():
        return False
    share = subprocess.run([str(pg_config), "--sharedir"], capture_output=True, text=True, check=False)
    return Path(share.stdout.strip(), "extension", "vector.control").exists()


def start(bindir: Path) -> Cluster:
    """initdb + pg_ctl start on a free port, a `memscribe_test` database with the vector extension."""
    as_user = None
    if os.geteuid() == 0:  # the server refuses to run as root
        try:
            pwd.getpwnam("postgres")
        except KeyError as exc:
            raise RuntimeError(
                "running as root and there is no 'postgres' user to start the server as"
            ) from exc
        as_user = "postgres"
    root = Path(tempfile.mkdtemp(prefix="memscribe-pg-"))
    data = root / "data"
    if as_user:
        shutil.chown(root, user=as_user)
    os.chmod(root, 0o700)
    cluster = Cluster(dsn="", data=data, bindir=bindir, as_user=as_user)
    _run(
        cluster,
        [
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-locale",
        ],
    )
    port = _free_port()
    options = (
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off "
        "-c max_connections=200"
    )
    _run(
        cluster,
        [
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(root / "server.log"),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            "start",
        ],
    )
    psql = [
        str(bindir / "psql"),
        "-h",
        "127.0.0.1",
        "-p",
        str(port),
        "-U",
        "postgres",
        "-v",
        "ON_ERROR_STOP=1",
        "-q",
        "-X",
    ]
    _run(cluster, [*psql, "-c", "CREATE DATABASE memscribe_test"])
    _run(cluster, [*psql, "-d", "memscribe_test", "-c", "CREATE EXTENSION vector"])
    cluster.dsn = f"postgresql://postgres@127.0.0.1:{port}/memscribe_test"
    return cluster


def _run(cluster: Cluster, argv: list[str]) -> None:
    if cluster.as_user:
        argv = ["runuser", "-u", cluster.as_user, "--", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd="/")
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
