"""``--otel`` and ``--otel-file PATH`` of ``autocue serve`` and ``autocue run`` (docs/telemetry.md)."""

from __future__ import annotations

import argparse

from autocue.cli.args import fail


def add_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--otel", action="store_true",
                   help="export OpenTelemetry GenAI spans over OTLP/HTTP ($OTEL_EXPORTER_OTLP_ENDPOINT, default "
                        "http://localhost:4318; on whenever that variable is set; needs autocue[otel])")
    p.add_argument("--otel-file", metavar="PATH", default=None,
                   help="write the OpenTelemetry spans to PATH instead, one JSON object a line")


def start(prog: str, args: argparse.Namespace, service: str) -> int:
    """Configure telemetry when asked; 0, or the exit status after one error line."""
    from autocue import telemetry
    from autocue.errors import MissingExtraError

    if not telemetry.wanted(args.otel, args.otel_file):
        return 0
    try:
        telemetry.configure(file=args.otel_file, service=service)
    except MissingExtraError as e:
        return fail(prog, str(e))
    except OSError as e:
        return fail(prog, f"--otel-file {args.otel_file}: {e.strerror or e}")
    return 0
