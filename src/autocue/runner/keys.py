"""Key names in ``userInputs`` text and the bytes a terminal sends for them.

A ``userInputs`` text is typed as written, with ``<name>`` tokens replaced by key presses:
``"hello<enter>"``, ``"<esc>"``, ``"<ctrl-c>"``. A text with no key token at all is a line:
it is typed and then ``<enter>`` is pressed. ``<lt>`` types a literal ``<``; an unknown
``<word>`` is typed as written (so ``<div>`` in a prompt stays text).

Each key is its own write, after the text before it has been echoed (the executor waits for a
quiet screen between writes): TUIs read a burst "text + CR" as a paste, and an ESC followed by
more bytes in one read as Alt+key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CSI_ARROWS = {"up": "A", "down": "B", "right": "C", "left": "D"}

KEYS: dict[str, str] = {
    "enter": "\r",
    "return": "\r",
    "ctrl-j": "\n",
    "esc": "\x1b",
    "escape": "\x1b",
    "tab": "\t",
    "shift-tab": "\x1b[Z",
    "backspace": "\x7f",
    "delete": "\x1b[3~",
    "space": " ",
    "home": "\x1b[H",
    "end": "\x1b[F",
    "pgup": "\x1b[5~",
    "pgdn": "\x1b[6~",
    "lt": "<",
    "gt": ">",
    **{name: "\x1b[" + code for name, code in _CSI_ARROWS.items()},
    **{f"ctrl-{c}": chr(ord(c) & 0x1F) for c in "abcdefghijklmnopqrstuvwxyz"},
    **{f"alt-{c}": "\x1b" + c for c in "abcdefghijklmnopqrstuvwxyz"},
    "f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS",
    **{f"f{n}": f"\x1b[{code}~" for n, code in zip(range(5, 13), (15, 17, 18, 19, 20, 21, 23, 24), strict=True)},
}
"""Every key name (lower case) and its bytes in legacy xterm encoding."""

_TOKEN = re.compile(r"<([A-Za-z0-9-]+)>")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One write: typed ``text`` or one key press (``key`` is its name)."""

    data: str
    key: str | None = None


def key_bytes(name: str, *, app_cursor: bool = False) -> str:
    """The bytes of a key; arrows use ``ESC O x`` when the program enabled application cursor keys."""
    name = name.lower()
    if app_cursor and name in _CSI_ARROWS:
        return "\x1bO" + _CSI_ARROWS[name]
    return KEYS[name]


def parse_input(text: str) -> list[Chunk]:
    """Split an input into writes; a text with no key token gets a final ``<enter>``."""
    chunks: list[Chunk] = []
    buf: list[str] = []
    any_key = False
    at = 0
    for m in _TOKEN.finditer(text):
        name = m.group(1).lower()
        if name not in KEYS:
            continue
        buf.append(text[at:m.start()])
        at = m.end()
        if name in ("lt", "gt"):
            buf.append(KEYS[name])
            continue
        any_key = True
        if "".join(buf):
            chunks.append(Chunk("".join(buf)))
        buf = []
        chunks.append(Chunk(KEYS[name], name))
    buf.append(text[at:])
    if "".join(buf):
        chunks.append(Chunk("".join(buf)))
    if not any_key:
        chunks.append(Chunk(KEYS["enter"], "enter"))
    return chunks
