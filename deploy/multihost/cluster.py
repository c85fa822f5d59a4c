"""Start each host's processes from the repository's deployment files.

- data host: a PostgreSQL cluster of its own (``initdb`` as the ``postgres`` user in the
  run's directory, ``deploy/postgresql.conf`` included) and Redis (``deploy/redis.conf``);
- web hosts: the Procfile's ``web`` line (daphne) on port 8000;
- worker host: the Procfile's other lines (the Celery worker of each queue, beat);
- proxy host: HAProxy with ``deploy/haproxy.cfg`` and a throwaway self-signed certificate.

Tavla's processes get ``deploy/tavla.env`` plus the run's site file (``site.env``: the
secret key, the site's name, the proxy's address as the trusted proxy), as a real host loads
its shared and site environment files.
"""

from __future__ import annotations

import glob
import os
import secrets
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from deploy.multihost.network import SITE_HOST, SUBNET, Host

BASE_DIR = Path(__file__).resolve().parent.parent.parent
DEPLOY = BASE_DIR / "deploy"
WEB_PORT = 8000


class StartError(RuntimeError):
    pass


def wait_for(what: str, condition: Callable[[], bool], timeout: float,
             interval: float = 0.1) -> float:
    """Poll ``condition`` until it holds; the seconds it took. Raises StartError after
    ``timeout`` seconds."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise StartError(f"{what}: not within {timeout:.0f} s")
        time.sleep(interval)
    return time.monotonic() - started


def read_env_file(path: Path) -> dict[str, str]:
    """``NAME=value`` lines (``#`` comments, blank lines skipped), as systemd reads them."""
    values = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def procfile() -> dict[str, list[str]]:
    """The Procfile's processes, ``$PORT`` filled in."""
    out = {}
    for line in (BASE_DIR / "Procfile").read_text().splitlines():
        if ":" in line and not line.startswith("#"):
            name, command = line.split(":", 1)
            out[name.strip()] = shlex.split(command.replace("$PORT", str(WEB_PORT)))
    return out


def postgres_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise StartError(f"PostgreSQL's {name} not found (Debian: apt-get install postgresql)")
    return found[-1]


class Cluster:
    """The processes of one run, with their logs in ``workdir/logs``."""

    def __init__(self, workdir: Path, proxy_address: str) -> None:
        self.workdir = workdir
        self.logs = workdir / "logs"
        self.logs.mkdir(exist_ok=True)
        site = {
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": f"{SITE_HOST},tavla-web1,tavla-web2",
            "CSRF_TRUSTED_ORIGINS": f"https://{SITE_HOST}",
            "TAVLA_TRUSTED_PROXIES": proxy_address,
            # The operator's scrapes (docs/operations.md): each web host directly, with a token.
            "TAVLA_METRICS_TOKEN": secrets.token_urlsafe(24),
            # Every bot plays from the client host's one address, a tournament hall behind
            # one NAT: the per-address socket limits are for strangers, not for this hall.
            "TAVLA_SOCKETS_PER_ADDRESS": "100000",
            "TAVLA_SOCKET_CONNECT_BURST": "100000",
        }
        (workdir / "site.env").write_text("".join(f"{k}={v}\n" for k, v in site.items()))
        venv_bin = str(Path(sys.executable).parent)
        self.env = {
            "PATH": f"{venv_bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "PYTHONPATH": str(BASE_DIR), "PYTHONUNBUFFERED": "1", "LANG": "C.UTF-8",
            "HOME": str(workdir),
            **read_env_file(DEPLOY / "tavla.env"), **read_env_file(workdir / "site.env"),
        }
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, host: Host, name: str, argv: list[str],
              env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        with (self.logs / f"{host.name}-{name}.log").open("ab") as log:
            process = subprocess.Popen(host.command(argv), cwd=BASE_DIR,
                                       env=env or self.env, stdin=subprocess.DEVNULL,
                                       stdout=log, stderr=subprocess.STDOUT)
        self.processes[f"{host.name}/{name}"] = process
        return process

    def run(self, host: Host, argv: list[str], what: str, user: str | None = None,
            env: dict[str, str] | None = None) -> str:
        if user:
            argv = ["runuser", "-u", user, "--", *argv]
        result = subprocess.run(host.command(argv), cwd=BASE_DIR, env=env or self.env,
                                capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise StartError(f"{what} failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
        return result.stdout

    # -- the data host ----------------------------------------------------------------------

    def start_data(self, data: Host) -> None:
        pgdata = self.workdir / "pgdata"
        pgdata.mkdir()
        shutil.chown(pgdata, "postgres", "postgres")
        os.chmod(self.workdir, 0o755)
        self.run(data, [postgres_bin("initdb"), "-D", str(pgdata), "-U", "postgres",
                        "-A", "trust", "-E", "UTF8", "--no-sync"], "initdb", user="postgres")
        shutil.copy(DEPLOY / "postgresql.conf", pgdata / "tavla.conf")
        with (pgdata / "postgresql.conf").open("a") as conf:
            conf.write("\ninclude 'tavla.conf'\n")
        # A throwaway cluster on a private network: trust. A real one: scram-sha-256.
        (pgdata / "pg_hba.conf").write_text(
            "local all all trust\n"
            f"host all all {SUBNET}.0/24 trust\n")
        shutil.chown(pgdata / "tavla.conf", "postgres", "postgres")
        self.start(data, "postgres", ["runuser", "-u", "postgres", "--",
                                      postgres_bin("postgres"), "-D", str(pgdata),
                                      "-c", f"unix_socket_directories={pgdata}"])
        wait_for("PostgreSQL on the data host", lambda: subprocess.run(
            data.command([postgres_bin("pg_isready"), "-q", "-h", data.address]),
            check=False).returncode == 0, 60)
        psql = [postgres_bin("psql"), "-h", str(pgdata), "-U", "postgres", "-v",
                "ON_ERROR_STOP=1", "-q"]
        self.run(data, [*psql, "-c", "CREATE ROLE tavla LOGIN",
                        "-c", "CREATE DATABASE tavla OWNER tavla"], "creating the database",
                 user="postgres")
        redis_dir = self.workdir / "redis"
        redis_dir.mkdir()
        self.start(data, "redis", ["redis-server", str(DEPLOY / "redis.conf"),
                                   "--dir", str(redis_dir)])
        wait_for("Redis on the data host", lambda: subprocess.run(
            data.command(["redis-cli", "-h", data.address, "ping"]), capture_output=True,
            check=False).stdout.strip() == b"PONG", 30)

    # -- Tavla --------------------------------------------------------------------------------

    def migrate(self, host: Host) -> None:
        self.run(host, [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
                 "manage.py migrate")

    def start_web(self, web: Host) -> subprocess.Popen[bytes]:
        return self.start(web, "daphne", procfile()["web"])

    def start_workers(self, worker: Host, names: list[str] | None = None) -> None:
        for name, argv in procfile().items():
            if name != "web" and (names is None or name in names):
                self.start(worker, name, argv)

    # -- the proxy ------------------------------------------------------------------------------

    def make_certificate(self) -> tuple[Path, Path]:
        """A throwaway self-signed certificate for the site's name: (PEM for HAProxy with the
        key, certificate alone for the clients to trust)."""
        key, cert = self.workdir / "tls.key", self.workdir / "tls.crt"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", f"/CN={SITE_HOST}", "-addext", f"subjectAltName=DNS:{SITE_HOST}",
                        "-keyout", str(key), "-out", str(cert)], check=True,
                       capture_output=True)
        pem = self.workdir / "tls.pem"
        pem.write_bytes(cert.read_bytes() + key.read_bytes())
        pem.chmod(0o600)
        return pem, cert

    def start_proxy(self, proxy: Host, pem: Path) -> None:
        env = {"PATH": self.env["PATH"], "TAVLA_TLS_PEM": str(pem), "TAVLA_SITE_HOST": SITE_HOST}
        self.run(proxy, ["haproxy", "-c", "-q", "-f", str(DEPLOY / "haproxy.cfg")],
                 "haproxy -c (the configuration)", env=env)
        self.start(proxy, "haproxy", ["haproxy", "-db", "-f", str(DEPLOY / "haproxy.cfg")],
                   env=env)
