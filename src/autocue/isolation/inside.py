"""The first process of a sandbox with a private network: closes egress, forwards the mock server, runs the program.

Standard library only, and runnable as a file (``python3 inside.py ...``), so a container image
with any Python 3.8+ runs it without autocue installed. Inside the sandbox's network namespace it:

1. makes every address local (``ip route add local 0.0.0.0/0 dev lo``, and ``::/0``), so a connect
   to any host gets a reset at once instead of waiting for a timeout (the namespace has no other
   interface: nothing can leave it either way);
2. watches the loopback interface with an ``AF_PACKET`` socket: each TCP SYN, and each UDP
   datagram, to an address outside 127.0.0.0/8 and ``::1`` is an egress attempt, written as one
   JSON line to ``--log`` (``{"destination": "1.1.1.1:443"}``, or ``"dns:example.com"`` for a DNS
   query, with its name read from the packet);
3. listens on ``127.0.0.1:--port`` (the port the agent's base URL names) and forwards each
   connection over ``--socket``, a Unix socket bind-mounted from the host where autocue's relay
   reaches the real mock server;
4. runs the program (after ``--``) with no capabilities (``setpriv`` drops the two network ones
   this process was given), waits for it, reads the packets still queued, and exits with its code.

Signals the terminal or the runner sends to the process group reach the program; this process
outlives them until the program exits.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
from typing import IO, Any

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
_CHUNK = 65536


def pump(src: socket.socket, dst: socket.socket) -> None:
    """Copy ``src`` to ``dst`` until EOF, then half-close ``dst`` (both ends of a relay use it)."""
    try:
        while True:
            data = src.recv(_CHUNK)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def relay(conn: socket.socket, connect: Any) -> None:
    """Join ``conn`` to a new connection made by ``connect()`` (two pumps; both sockets closed after)."""
    try:
        other = connect()
    except OSError:
        conn.close()
        return

    def back() -> None:
        pump(other, conn)

    t = threading.Thread(target=back, daemon=True)
    t.start()
    pump(conn, other)
    t.join()
    conn.close()
    other.close()


def serve(listener: socket.socket, connect: Any) -> None:
    """Accept on ``listener`` forever, relaying each connection (a daemon thread each)."""
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=relay, args=(conn, connect), daemon=True).start()


def _dns_name(payload: bytes) -> str | None:
    """The first question's name of a DNS query (None: not one)."""
    if len(payload) < 13:
        return None
    labels, i = [], 12
    while i < len(payload):
        n = payload[i]
        if n == 0:
            return ".".join(labels) or "."
        if n >= 64 or i + 1 + n > len(payload):
            return None
        labels.append(payload[i + 1:i + 1 + n].decode("ascii", "replace"))
        i += 1 + n
    return None


def attempt(packet: bytes) -> str | None:
    """The egress destination a packet seen leaving on ``lo`` tries to reach, or None (local, or not an opening)."""
    if not packet:
        return None
    version = packet[0] >> 4
    if version == 4 and len(packet) >= 20:
        ihl = (packet[0] & 15) * 4
        proto, dst = packet[9], ipaddress.ip_address(packet[16:20])
        body, host = packet[ihl:], str(dst)
    elif version == 6 and len(packet) >= 40:
        proto, dst = packet[6], ipaddress.ip_address(packet[24:40])
        body, host = packet[40:], f"[{dst}]"
    else:
        return None
    if dst.is_loopback or len(body) < 8:
        return None
    port = struct.unpack("!H", body[2:4])[0]
    if proto == 6:  # TCP: a SYN without ACK opens a connection
        flags = body[13] if len(body) > 13 else 0
        return f"{host}:{port}" if flags & 0x02 and not flags & 0x10 else None
    if proto == 17:
        if port == 53:
            name = _dns_name(body[8:])
            if name is not None:
                return f"dns:{name}"
        return f"udp:{host}:{port}"
    return None


class Watch:
    """Egress attempts seen on ``lo``, appended to a log as JSON lines."""

    def __init__(self, log: IO[str]) -> None:
        self.log = log
        self.sock: socket.socket | None = None
        try:
            self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))  # type: ignore[attr-defined]
            self.sock.bind(("lo", 0))
        except (OSError, AttributeError) as e:  # no CAP_NET_RAW: the network stays closed, unwatched
            self.note(f"egress is closed but not watched: {e}")
            self.sock = None
        self.wake_r, self.wake_w = os.pipe()
        self.thread: threading.Thread | None = None

    def note(self, text: str) -> None:
        self.log.write(json.dumps({"note": text}) + "\n")
        self.log.flush()

    def run(self) -> None:
        """Log attempts until ``finish`` (a thread's body)."""
        sock = self.sock
        if sock is None:
            return
        while True:
            ready, _, _ = select.select([sock, self.wake_r], [], [])
            if self.wake_r in ready:
                return
            self._take(sock)

    def start(self) -> None:
        if self.sock is not None:
            self.thread = threading.Thread(target=self.run, daemon=True)
            self.thread.start()

    def finish(self) -> None:
        """Stop the thread, then log the packets still queued (sent on ``lo`` before the program ended)."""
        if self.sock is None:
            return
        os.write(self.wake_w, b"x")
        if self.thread is not None:
            self.thread.join()
        self.sock.setblocking(False)
        while self._take(self.sock):
            pass

    def _take(self, sock: socket.socket) -> bool:
        try:
            data, addr = sock.recvfrom(_CHUNK)
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return False
        if addr[2] == PACKET_OUTGOING:
            dest = attempt(data)
            if dest is not None:
                self.log.write(json.dumps({"destination": dest}) + "\n")
                self.log.flush()
        return True


def close_routes(watch: Watch) -> None:
    """Every address local (a reset at once, and the SYN visible on ``lo``); a note when ``ip`` cannot."""
    ip = shutil.which("ip") or next((p for p in ("/usr/sbin/ip", "/sbin/ip") if os.path.exists(p)), None)
    if ip is None:
        watch.note("no `ip` command: connections fail with 'network unreachable' and are not reported")
        return
    for args in (["route", "add", "local", "0.0.0.0/0", "dev", "lo"], ["-6", "route", "add", "local", "::/0", "dev", "lo"]):
        r = subprocess.run([ip, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        if r.returncode != 0 and args[0] != "-6":
            watch.note(f"ip {' '.join(args)}: {r.stderr.decode(errors='replace').strip()}")


def drop_caps(argv: list[str]) -> list[str]:
    """``argv`` run without capabilities (``setpriv``), when this process has any to drop."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return argv
    return [setpriv, "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--", *argv]


def _ignore(signum: int, frame: object) -> None:
    """A handler, not ``SIG_IGN``: ``exec`` resets it, so the program gets the signal's default action."""


def main(args: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="inside.py")
    p.add_argument("--port", type=int, default=0, help="the mock server's port, forwarded from 127.0.0.1")
    p.add_argument("--socket", default="", help="the Unix socket that reaches the mock server")
    p.add_argument("--log", required=True, help="where egress attempts go (JSON lines)")
    p.add_argument("--no-route", action="store_true", help="leave the routes alone")
    p.add_argument("argv", nargs=argparse.REMAINDER)
    ns = p.parse_args(args)
    argv = ns.argv[1:] if ns.argv[:1] == ["--"] else ns.argv
    if not argv:
        p.error("no program to run after --")
    log = open(ns.log, "a", encoding="utf-8")  # noqa: SIM115 (open for the whole run)
    watch = Watch(log)
    if not ns.no_route:
        close_routes(watch)
    watch.start()
    if ns.port:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", ns.port))
        listener.listen(64)
        path = ns.socket

        def connect() -> socket.socket:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s

        threading.Thread(target=serve, args=(listener, connect), daemon=True).start()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, _ignore)
    try:
        child = subprocess.Popen(drop_caps(argv), close_fds=True)
    except OSError as e:
        sys.stderr.write(f"autocue sandbox: cannot start {argv[0]!r}: {e.strerror or e}\n")
        return 127
    while True:
        try:
            code = child.wait()
            break
        except InterruptedError:
            continue
    watch.finish()
    log.write(json.dumps({"exit": code}) + "\n")
    log.close()
    if code < 0:  # killed by a signal: end the same way, so the runner sees it
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
