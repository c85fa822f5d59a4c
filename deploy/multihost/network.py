"""Hosts as network namespaces: each with its own address on one private network.

A run's namespaces are named ``tavla-<run>-<host>``, so runs side by side (pytest workers)
never meet; inside them every run uses the same addresses and host names, as a real site
would. The network's switch is a bridge in a namespace of its own (nothing is added to the
machine's own network), each host is joined to it by a veth pair, and each host's
``/etc/hosts`` (``/etc/netns/<namespace>/hosts``, which ``ip netns exec`` mounts) names
every host: ``tavla-proxy``, ``tavla-web1``, ..., ``tavla-db`` and ``tavla-redis`` (the data
host) and the site's name ``tavla.test`` (the proxy).
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

SUBNET = "10.25.0"
SITE_HOST = "tavla.test"
NETNS_ETC = Path("/etc/netns")


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


@dataclass
class Host:
    name: str  # "proxy", "web1", ...
    namespace: str
    address: str
    aliases: tuple[str, ...] = ()

    def command(self, argv: list[str]) -> list[str]:
        """``argv`` run on this host."""
        return ["ip", "netns", "exec", self.namespace, *argv]

    def pids(self) -> list[int]:
        out = subprocess.run(["ip", "netns", "pids", self.namespace], capture_output=True,
                             text=True, check=False).stdout
        return [int(pid) for pid in out.split()]

    def signal_all(self, signum: int) -> int:
        """Send ``signum`` to every process running on this host; how many there were."""
        pids = self.pids()
        for pid in pids:
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass
        return len(pids)


@dataclass
class Network:
    """The namespaces of one run. Use as a context manager: leaving it (even on an error)
    kills every process on its hosts and deletes the namespaces and their hosts files."""

    hosts: dict[str, Host] = field(default_factory=dict)
    run: str = field(default_factory=lambda: secrets.token_hex(3))

    @property
    def switch(self) -> str:
        return f"tavla-{self.run}-sw"

    def add(self, name: str, number: int, aliases: tuple[str, ...] = ()) -> Host:
        host = Host(name, f"tavla-{self.run}-{name}", f"{SUBNET}.{number}", aliases)
        self.hosts[name] = host
        return host

    def __enter__(self) -> Network:
        return self

    def __exit__(self, *exc: object) -> None:
        self.destroy()

    def create(self) -> None:
        ip("netns", "add", self.switch)
        ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
        ip("-n", self.switch, "link", "set", "br0", "up")
        lines = ["127.0.0.1 localhost"]
        for host in self.hosts.values():
            lines.append(f"{host.address} tavla-{host.name} {' '.join(host.aliases)}".strip())
        for host in self.hosts.values():
            ip("netns", "add", host.namespace)
            # The veth pair is made straight in the two namespaces: no name in the machine's
            # own network, so parallel runs never collide.
            ip("link", "add", "eth0", "netns", host.namespace, "type", "veth",
               "peer", "name", host.name, "netns", self.switch)
            ip("-n", self.switch, "link", "set", host.name, "master", "br0")
            ip("-n", self.switch, "link", "set", host.name, "up")
            ip("-n", host.namespace, "link", "set", "lo", "up")
            ip("-n", host.namespace, "addr", "add", f"{host.address}/24", "dev", "eth0")
            ip("-n", host.namespace, "link", "set", "eth0", "up")
            etc = NETNS_ETC / host.namespace
            etc.mkdir(parents=True, exist_ok=True)
            (etc / "hosts").write_text("\n".join(lines) + "\n")

    def cable(self, host: Host, plugged: bool) -> None:
        """Plug or pull the host's cable at the switch."""
        ip("-n", self.switch, "link", "set", host.name, "up" if plugged else "down")

    def destroy(self) -> None:
        # A throwaway run: nothing on these hosts needs a clean shutdown. SIGKILL reaches
        # frozen processes (a stopped host) too; wait until the kernel has reaped them all.
        for _ in range(50):
            if not sum([host.signal_all(signal.SIGKILL) for host in self.hosts.values()]):
                break
            time.sleep(0.1)
        for namespace in [*(h.namespace for h in self.hosts.values()), self.switch]:
            subprocess.run(["ip", "netns", "delete", namespace], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(NETNS_ETC / namespace, ignore_errors=True)
