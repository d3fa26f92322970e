"""The command line every ``autocue`` command shares: ``CliParser``, ``one_line``, ``plain_text``.

``CliParser`` is ``argparse.ArgumentParser`` with two changes. A usage error is one line on
stderr and exit 2 (``autocue serve: argument --port: invalid int value: 'abc' (see 'autocue
serve --help')``) instead of the usage block followed by the error. ``--help`` shows the
docstrings it is given as plain text: reST literals and roles lose their markup.

``fail(prog, message, code=2)`` says a problem in one line on stderr and returns the exit status
(2, a usage problem, unless ``code`` says otherwise).
``one_line(text)`` joins a multi-line message (an error with its hint below it) into one
line; ``plain_text(text)`` takes the reST markup out of a docstring. ``positive_int`` and
``positive_float`` are argument types that refuse 0, negative numbers, NaN and infinity with
a message naming the value.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from typing import NoReturn

_LITERAL = re.compile(r"``(.+?)``", re.DOTALL)
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`(~?)([^`<]*?)\s*(?:<[^>]*>)?`")
_LITERAL_BLOCK_LINE = re.compile(r"^[ \t]*::[ \t]*\n", re.MULTILINE)
_LITERAL_BLOCK_END = re.compile(r"::$", re.MULTILINE)


def _role_text(m: re.Match[str]) -> str:
    tilde, target = m.group(1), m.group(2)
    return target.rsplit(".", 1)[-1] if tilde else target


def plain_text(text: str) -> str:
    """``text`` without reST markup: ````x```` → ``x``, ``:class:`a.B``` → ``a.B`` (``~a.B`` → ``B``),
    a lone ``::`` line dropped and a paragraph's closing ``::`` made ``:``."""
    text = _LITERAL.sub(r"\1", text)
    text = _ROLE.sub(_role_text, text)
    text = _LITERAL_BLOCK_LINE.sub("", text)
    return _LITERAL_BLOCK_END.sub(":", text)


def one_line(text: str) -> str:
    """A message of several lines (an error, then its hint) as one line."""
    out = ""
    for line in (x.strip() for x in text.splitlines()):
        if not line:
            continue
        if out:
            out += " " if out[-1] in ".:;!?" else "; "
        out += line
    return out


def fail(prog: str, message: str, code: int = 2) -> int:
    """Print ``prog: message`` on stderr; returns ``code`` (2: the exit status of a usage problem)."""
    print(f"{prog}: {message}", file=sys.stderr)
    return code


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number; give 1 or more") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: give 1 or more")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give a number of seconds above 0") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text}: give a number of seconds above 0")
    return value


class CliParser(argparse.ArgumentParser):
    """See the module docstring; sub-parsers made with ``add_subparsers`` are ``CliParser`` too."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {one_line(message)} (see '{self.prog} --help')", file=sys.stderr)
        sys.exit(2)

    def format_help(self) -> str:
        return plain_text(super().format_help())


__all__ = ["CliParser", "fail", "one_line", "plain_text", "positive_float", "positive_int"]
