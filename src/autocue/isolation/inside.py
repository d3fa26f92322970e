"""The first process of a sandbox with a private network: closes egress, forwards the mock server, runs the program.

Standard library only, and runnable as a file (``python3 inside.py ...``), so a container image
with any Python 3.8+ runs it without autocue installed. Inside the sandbox's network namespace it:

1. makes every address local (``ip route add local 0.0.0.0/0 dev lo``, and ``::/0``, over rtnetlink), so a connect
   to any host gets a reset at once instead of waiting for a timeout (the namespace has no other
   interface: nothing can leave it either way);
2. watches the loopback interface with an ``AF_PACKET`` socket (handed over to the host's watcher
   with ``--watch``, so its close at the end costs the run nothing): each TCP SYN, and each UDP
   datagram, to an address outside 127.0.0.0/8 and ``::1`` is an egress attempt, written as one
   JSON line to ``--log`` (``{"destination": "1.1.1.1:443"}``, or ``"dns:example.com"`` for a DNS
   query, with its name read from the packet);
3. listens on ``127.0.0.1:--port`` (the port the agent's base URL names) and forwards each
   connection over ``--socket``, a Unix socket bind-mounted from the host where autocue's relay
   reaches the real mock server;
4. runs the program (after ``--``) with no capabilities (``setpriv`` drops the two network ones
   this process was given), waits for it, reads the packets still queued, and exits with its code.

Besides, every DNS query gets an NXDOMAIN answer at once (``refuse_dns``).

Signals the terminal or the runner sends to the process group reach the program; this process
outlives them until the program exits.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import struct
import sys
import threading

TYPE_CHECKING = False  # `typing` costs this process 4 ms; mypy reads the block below
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO

# Only modules a bare interpreter loads fast: this process starts every sandboxed run (no argparse, json,
# ipaddress, subprocess or shutil, which pull in ``re``).
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
IP_PKTINFO = getattr(socket, "IP_PKTINFO", 8)  # Linux; not every Python names it
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


def relay(conn: socket.socket, connect: Callable[[], socket.socket]) -> None:
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


def serve(listener: socket.socket, connect: Callable[[], socket.socket]) -> None:
    """Accept on ``listener`` forever, relaying each connection (a daemon thread each)."""
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=relay, args=(conn, connect), daemon=True).start()


def refuse_dns() -> None:
    """Answer every DNS query sent to any address on UDP port 53 with NXDOMAIN, at once (a thread's body).

    Every address being local, a query to the resolver of ``/etc/resolv.conf`` arrives here. A resolver on
    an unconnected socket (musl's: Codex's binary) ignores the ICMP "port unreachable" that would otherwise
    come back, and waits out its timeout (2.5 s a try); an NXDOMAIN answer ends its lookup at once (musl
    ignores a REFUSED one and waits on). The answer
    leaves from the address the query was sent to (``IP_PKTINFO``), as a resolver checks."""
    try:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.IPPROTO_IP, IP_PKTINFO, 1)
        sock.bind(("0.0.0.0", 53))
    except OSError:
        return
    while True:
        try:
            data, anc, _, client = sock.recvmsg(4096, 256)
        except OSError:
            return
        if len(data) < 12:
            continue
        dst = next((d[4:8] for lvl, typ, d in anc if lvl == socket.IPPROTO_IP and typ == IP_PKTINFO), None)
        # header: the query's id, QR=1, its opcode and RD, RA=1, RCODE=3 (NXDOMAIN); the question echoed
        flags = 0x8000 | (data[2] & 0x79) << 8 | 0x80 | 3
        reply = data[:2] + struct.pack("!HHHHH", flags, struct.unpack("!H", data[4:6])[0], 0, 0, 0) + data[12:]
        pktinfo = [(socket.IPPROTO_IP, IP_PKTINFO, struct.pack("=I4s4s", 0, dst, b"\0" * 4))] if dst else []
        try:
            sock.sendmsg([reply], pktinfo, 0, client)
        except OSError:
            continue


def _dns_name(payload: bytes) -> str | None:
    """The first question's name of a DNS query (None: not one)."""
    if len(payload) < 13:
        return None
    labels: list[str] = []
    i = 12
    while i < len(payload):
        n = payload[i]
        if n == 0:
            return ".".join(labels) or "."
        if n >= 64 or i + 1 + n > len(payload):
            return None
        labels.append(payload[i + 1:i + 1 + n].decode("ascii", "replace"))
        i += 1 + n
    return None


def _quote(text: str) -> str:
    """``text`` as a JSON string literal."""
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch < " " or ch > "~":
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else "?")
        else:
            out.append(ch)
    return "".join(out) + '"'


def attempt(packet: bytes) -> str | None:
    """The egress destination a packet seen leaving on ``lo`` tries to reach, or None (local, or not an opening)."""
    if not packet:
        return None
    version = packet[0] >> 4
    if version == 4 and len(packet) >= 20:
        ihl = (packet[0] & 15) * 4
        proto = packet[9]
        if packet[16] == 127:  # 127.0.0.0/8
            return None
        body, host = packet[ihl:], socket.inet_ntop(socket.AF_INET, packet[16:20])
    elif version == 6 and len(packet) >= 40:
        proto = packet[6]
        if packet[24:40] == b"\0" * 15 + b"\1":  # ::1
            return None
        body, host = packet[40:], f"[{socket.inet_ntop(socket.AF_INET6, packet[24:40])}]"
    else:
        return None
    if len(body) < 8:
        return None
    port = struct.unpack("!H", body[2:4])[0]
    if proto == 17 and struct.unpack("!H", body[0:2])[0] == 53:  # an answer of ``refuse_dns``
        return None
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


def packet_socket() -> socket.socket:
    """An ``AF_PACKET`` socket seeing every packet on ``lo`` (needs ``CAP_NET_RAW``)."""
    # no protocol until bound: a hook made at creation and moved by bind costs an RCU grace period
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, 0)  # type: ignore[attr-defined]
    sock.bind(("lo", ETH_P_ALL))  # Python puts it in network order
    return sock


def hand_off(path: str, sock: socket.socket) -> bool:
    """Send ``sock`` to the host's watcher at ``path`` (a Unix socket of the run's control folder). The host
    reads it, and closes it after the run, off its critical path: removing a packet hook waits for an RCU grace
    period (10 to 20 ms), which this process would otherwise pay at its exit. Our descriptor can then go at
    once: a descriptor in flight keeps the socket open (and its hook seeing packets) until the host takes it."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
            c.connect(path)
            return socket.send_fds(c, [b"watch"], [sock.fileno()]) > 0
    except OSError:
        return False


class Watch:
    """Egress attempts seen on ``lo``, appended to a log as JSON lines."""

    def __init__(self, log: IO[str], sock: socket.socket | None) -> None:
        """Watch ``sock``, a packet socket on ``lo`` (None: nothing to watch here)."""
        self.log = log
        self.sock = sock
        self.wake_r, self.wake_w = os.pipe()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()

    def note(self, text: str) -> None:
        self.log.write('{"note": ' + _quote(text) + "}\n")
        self.log.flush()

    def run(self) -> None:
        """Log attempts until ``finish`` (a thread's body)."""
        sock = self.sock
        if sock is None:
            return
        while True:
            ready, _, _ = select.select([sock.fileno(), self.wake_r], [], [])
            if self.wake_r in ready:
                return
            with self.lock:
                sock.setblocking(False)
                self._take(sock)
                sock.setblocking(True)

    def start(self) -> None:
        if self.sock is not None:
            self.thread = threading.Thread(target=self.run, daemon=True)
            self.thread.start()

    def finish(self) -> None:
        """Stop the thread, then log the packets still queued (sent on ``lo`` before the program ended)."""
        if self.sock is None:
            return
        if self.thread is not None:
            os.write(self.wake_w, b"x")
            self.thread.join()
            self.thread = None
        self.drain()
        os.close(self.wake_r)
        os.close(self.wake_w)

    def drain(self) -> None:
        """Log the packets queued now (the thread, if it runs, takes the ones that come later)."""
        if self.sock is None:
            return
        with self.lock:
            self.sock.setblocking(False)
            while self._take(self.sock):
                pass
            self.sock.setblocking(True)

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
                self.log.write('{"destination": ' + _quote(dest) + "}\n")
                self.log.flush()
        return True


def which(name: str, *fallbacks: str) -> str | None:
    for d in [*os.environ.get("PATH", "").split(os.pathsep), *fallbacks]:
        path = os.path.join(d, name)
        if d and os.access(path, os.X_OK) and not os.path.isdir(path):
            return path
    return None


def local_route(family: int) -> int:
    """``ip route add local default dev lo`` (``family``'s), said over rtnetlink: 0, or the kernel's errno."""
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0) as nl:  # NETLINK_ROUTE
        # rtmsg: family, dst_len 0, src_len, tos, table RT_TABLE_LOCAL, protocol RTPROT_BOOT, scope
        # RT_SCOPE_HOST, type RTN_LOCAL, flags; one attribute: RTA_OIF = lo's index
        body = struct.pack("=BBBBBBBBI", family, 0, 0, 0, 255, 3, 254, 2, 0)
        body += struct.pack("=HHI", 8, 4, socket.if_nametoindex("lo"))
        flags = 0x1 | 0x4 | 0x400 | 0x200  # NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL
        nl.send(struct.pack("=IHHII", 16 + len(body), 24, flags, 1, 0) + body)  # RTM_NEWROUTE
        reply = nl.recv(4096)
    if len(reply) >= 20 and struct.unpack("=H", reply[4:6])[0] == 2:  # NLMSG_ERROR (0: the ack)
        code: int = struct.unpack("=i", reply[16:20])[0]
        return -code
    return 0


def close_routes(watch: Watch) -> None:
    """Every address local (a reset at once, and the SYN visible on ``lo``); a note when it cannot be."""
    try:
        err = local_route(socket.AF_INET)
    except OSError as e:
        err = e.errno or -1
    if err:
        watch.note(f"cannot route 0.0.0.0/0 to lo ({os.strerror(err) if err > 0 else 'netlink'}): connections "
                   "fail with 'network unreachable' and are not reported")
    try:  # no IPv6 in this namespace: nothing to close
        local_route(socket.AF_INET6)
    except OSError:
        pass


def drop_caps(argv: list[str]) -> list[str]:
    """``argv`` run without capabilities (``setpriv``), when this process has any to drop."""
    setpriv = which("setpriv", "/usr/bin", "/bin")
    if setpriv is None:
        return argv
    return [setpriv, "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--", *argv]


def _ignore(signum: int, frame: object) -> None:
    """A handler, not ``SIG_IGN``: ``exec`` resets it, so the program gets the signal's default action."""


USAGE = "usage: inside.py [--port PORT --socket PATH] --log PATH [--watch PATH] [--no-route] -- PROGRAM [ARGS...]"


class Options:
    port = 0
    socket = ""
    log = ""
    watch = ""
    no_route = False
    argv: list[str]

    def __init__(self, args: list[str]) -> None:
        i = 0
        while i < len(args) and args[i] != "--":
            key = args[i]
            if key == "--no-route":
                self.no_route = True
            elif key in ("--port", "--socket", "--log", "--watch") and i + 1 < len(args):
                i += 1
                setattr(self, key[2:], int(args[i]) if key == "--port" else args[i])
            else:
                raise SystemExit(f"{USAGE}\nunknown option {key!r}")
            i += 1
        self.argv = args[i + 1:]
        if not self.argv or not self.log:
            raise SystemExit(USAGE)


def main(args: list[str] | None = None) -> int:
    ns = Options(sys.argv[1:] if args is None else args)
    argv = ns.argv
    log = open(ns.log, "a", encoding="utf-8")  # noqa: SIM115 (open for the whole run)
    try:
        sock: socket.socket | None = packet_socket()
    except (OSError, AttributeError) as e:  # no CAP_NET_RAW: the network stays closed, unwatched
        sock = None
        log.write('{"note": ' + _quote(f"egress is closed but not watched: {e}") + "}\n")
    if sock is not None and ns.watch and hand_off(ns.watch, sock):
        sock.close()  # the host's descriptor keeps it open: no hook removed here
        sock = None
    watch = Watch(log, sock)
    if not ns.no_route:
        close_routes(watch)
        threading.Thread(target=refuse_dns, daemon=True).start()
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
        cmd = drop_caps(argv)
        exe = cmd[0] if "/" in cmd[0] else which(cmd[0])
        if exe is None:
            raise FileNotFoundError(2, "no such program on PATH")
        pid = os.posix_spawn(exe, cmd, dict(os.environ))
    except OSError as e:
        sys.stderr.write(f"autocue sandbox: cannot start {argv[0]!r}: {e.strerror or e}\n")
        return 127
    while True:
        try:
            code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            break
        except InterruptedError:
            continue
    watch.finish()
    log.write(f'{{"exit": {code}}}\n')
    log.close()
    if code < 0:  # killed by a signal: end the same way, so the runner sees it
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
