"""``autocue replay``: replay a recording, or fork it at reply N to a live upstream.

    autocue replay FILE [--match strict|loose|off] [--host H] [--port P] [--json]
    autocue replay FILE --from N --upstream URL [--out BRANCH.yaml] [--match ...] [--json]

Without ``--from`` it serves FILE as ``autocue serve FILE`` does (a recording's requests are
compared with the recorded ones: ``--match``, default the file's ``server.match``). With
``--from N --upstream URL`` the first N replies come from FILE and every later model request
goes to the upstream through the recording proxy; the branch (the N replies, then the
upstream's) is written to ``--out`` (default ``FILE-from-N.yaml`` beside FILE). See docs/record.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import orjson

from autocue.cli.args import CliParser, fail, one_line
from autocue.cli.serving import add_listen_options, base_url_lines, listen, serve_forever

PROG = "autocue replay"


def parser() -> argparse.ArgumentParser:
    p = CliParser(prog=PROG, description="Replay a recording (failing a request that differs from the recorded "
                                         "one), or fork it at reply N to a live upstream.")
    p.add_argument("file", metavar="FILE", help="a scenario written by autocue record")
    add_listen_options(p)
    p.add_argument("--match", choices=("strict", "loose", "off"), default=None,
                   help="compare each request with the recorded one (default: the file's server.match)")
    p.add_argument("--from", dest="from_", type=int, default=None, metavar="N",
                   help="play the first N replies from FILE, then send the rest to --upstream")
    p.add_argument("--upstream", default=None, metavar="URL", help="with --from: the live API the fork goes to")
    p.add_argument("--out", default=None, metavar="BRANCH.yaml",
                   help="with --from: where the branch scenario is written (default FILE-from-N.yaml)")
    p.add_argument("--json", action="store_true", help="print the bound address as one JSON line")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    src = Path(args.file)
    if not src.is_file():
        return fail(PROG, f"{src}: no such file (give a scenario written by autocue record)")
    if (args.from_ is None) != (args.upstream is None):
        return fail(PROG, "--from N and --upstream URL go together (fork at reply N to that upstream)")
    if args.from_ is None:
        from autocue.cli import serve

        return serve.main([str(src), "--host", args.host, "--port", str(args.port), "--log-level", args.log_level,
                           *(["--match", args.match] if args.match else []), *(["--json"] if args.json else [])])
    from autocue.cli.record import _check_upstream
    from autocue.record.fork import ForkApp, ForkError
    from autocue.scenario.writer import RecordingFileError

    problem = _check_upstream(args.upstream)
    if problem:
        return fail(PROG, problem)
    out = Path(args.out) if args.out else src.with_name(f"{src.stem}-from-{args.from_}.yaml")
    if out.resolve() == src.resolve():
        return fail(PROG, f"--out {out}: is FILE itself; name another file for the branch")
    try:
        app = ForkApp(src, args.from_, args.upstream, out, match=args.match)
    except (ForkError, RecordingFileError) as e:
        return fail(PROG, one_line(str(e)))
    except (OSError, UnicodeDecodeError) as e:
        return fail(PROG, f"{src}: cannot read it or write {out}: {e}")
    except Exception as e:  # the recording does not load as a scenario (its file:line:col error)
        return fail(PROG, one_line(str(e)))
    sock = listen(PROG, args)
    if sock is None:
        return 2

    def announce(url: str, port: int) -> None:
        if args.json:
            print(orjson.dumps({"url": url, "port": port, "upstream": args.upstream, "out": str(out),
                                "from": args.from_, "replies": app.total}).decode(), flush=True)
        else:
            print(f"autocue replay: {url}: replies 1-{args.from_} of {app.total} from {src}, then "
                  f"{args.upstream}; branch -> {out}", flush=True)
            print("\n".join(base_url_lines(url)), flush=True)

    with sock:
        return serve_forever(PROG, args, sock, app, announce)
