"""MCP ``CallToolResult`` content → agent tool-result content (text and image blocks).

Text stays text; images stay images; an embedded resource becomes its text (headed by its URI)
or, for an image blob, an image; audio, binary resources and resource links become one line of
text saying what they were, so the model is told about them rather than silently losing them.
"""

from __future__ import annotations

from typing import Any

import mcp_types as mt

from autocue.llm.types import ImageContent, TextContent, UserContent


def _b64_size(data: str) -> int:
    return len(data) * 3 // 4 - data.count("=", -2)


def convert_content(blocks: list[Any]) -> list[UserContent]:
    out: list[UserContent] = []
    for b in blocks:
        if isinstance(b, mt.TextContent):
            out.append(TextContent(b.text))
        elif isinstance(b, mt.ImageContent):
            out.append(ImageContent(b.data, b.mime_type))
        elif isinstance(b, mt.EmbeddedResource):
            r = b.resource
            if isinstance(r, mt.TextResourceContents):
                out.append(TextContent(f"[resource {r.uri}]\n{r.text}"))
            elif (r.mime_type or "").startswith("image/"):
                out.append(ImageContent(r.blob, r.mime_type or "application/octet-stream"))
            else:
                out.append(TextContent(
                    f"[resource {r.uri}: {r.mime_type or 'binary'}, {_b64_size(r.blob)} bytes not shown]"
                ))
        elif isinstance(b, mt.AudioContent):
            out.append(TextContent(f"[audio {b.mime_type}, {_b64_size(b.data)} bytes not shown]"))
        elif isinstance(b, mt.ResourceLink):
            title = f" {b.name}" if b.name else ""
            out.append(TextContent(f"[resource link {b.uri}]{title}"))
        else:  # a content type newer than this client
            out.append(TextContent(f"[{getattr(b, 'type', type(b).__name__)} content not shown]"))
    return out


def error_text(blocks: list[Any]) -> str:
    """The text of an ``isError`` result (what the model sees as the tool error)."""
    parts = [c.text for c in convert_content(blocks) if isinstance(c, TextContent)]
    return "\n".join(parts) or "the MCP tool reported an error without a message"


__all__ = ["convert_content", "error_text"]
