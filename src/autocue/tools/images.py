"""Detecting the image formats the ``read`` tool returns as image content, by their bytes.

Public: ``detect_image_mime``.
"""

from __future__ import annotations

SNIFF_BYTES = 16


def detect_image_mime(head: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF or WebP file from its first bytes, else ``None``.

    Detection is by content, never by file name: a ``.png`` holding text reads as text.
    """
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    return None
