"""The compact line diff the ``edit`` tool puts in its details (pi's format).

Changed lines are ``-N text`` / ``+N text`` (old and new line numbers, padded to one width),
up to four context lines ``' N text'`` around each change and ``' ...'`` where lines were
skipped. Also reports the first changed line of the new file.

Public: ``generate_diff(old, new, context_lines=4) -> (diff, first_changed_line | None)``.
"""

from __future__ import annotations

import difflib


def _lines(text: str) -> list[str]:
    return text.split("\n")


def generate_diff(old: str, new: str, context_lines: int = 4) -> tuple[str, int | None]:
    old_lines, new_lines = _lines(old), _lines(new)
    width = len(str(max(len(old_lines), len(new_lines))))
    if old.endswith("\n") and new.endswith("\n"):  # the empty "line" after a final newline is no line
        old_lines, new_lines = old_lines[:-1], new_lines[:-1]
    # common head and tail lines are equal parts; only the middle goes through difflib (cheap
    # for an edit, which changes one region)
    n = min(len(old_lines), len(new_lines))
    head = 0
    while head < n and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < n - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    old_mid = old_lines[head : len(old_lines) - tail]
    new_mid = new_lines[head : len(new_lines) - tail]
    parts: list[tuple[str, list[str]]] = []
    if head:
        parts.append(("=", old_lines[:head]))
    sm = difflib.SequenceMatcher(None, old_mid, new_mid, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            parts.append(("=", old_mid[i1:i2]))
            continue
        if i2 > i1:
            parts.append(("-", old_mid[i1:i2]))
        if j2 > j1:
            parts.append(("+", new_mid[j1:j2]))
    if tail:
        parts.append(("=", old_lines[len(old_lines) - tail :]))

    out: list[str] = []
    old_no = new_no = 1
    last_was_change = False
    first_changed: int | None = None
    pad = " " * width
    for i, (kind, lines) in enumerate(parts):
        if kind != "=":
            if first_changed is None:
                first_changed = new_no
            for line in lines:
                if kind == "+":
                    out.append(f"+{new_no:>{width}} {line}")
                    new_no += 1
                else:
                    out.append(f"-{old_no:>{width}} {line}")
                    old_no += 1
            last_was_change = True
            continue
        next_is_change = i + 1 < len(parts) and parts[i + 1][0] != "="
        if last_was_change or next_is_change:
            show = lines
            skip_start = skip_end = 0
            if not last_was_change:
                skip_start = max(0, len(lines) - context_lines)
                show = lines[skip_start:]
            if not next_is_change and len(show) > context_lines:
                skip_end = len(show) - context_lines
                show = show[:context_lines]
            if skip_start:
                out.append(f" {pad} ...")
                old_no += skip_start
                new_no += skip_start
            for line in show:
                out.append(f" {old_no:>{width}} {line}")
                old_no += 1
                new_no += 1
            if skip_end:
                out.append(f" {pad} ...")
                old_no += skip_end
                new_no += skip_end
        else:
            old_no += len(lines)
            new_no += len(lines)
        last_was_change = False
    return "\n".join(out), first_changed
