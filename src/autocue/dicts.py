"""Plain-dict helpers shared by the layers: ``deep_merge``.

    deep_merge({"a": {"x": 1, "y": 2}, "b": 1}, {"a": {"y": 3}, "b": [2]})
    # {'a': {'x': 1, 'y': 3}, 'b': [2]}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["deep_merge"]


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``base`` with ``over`` merged in: mappings merge key by key, anything else replaces.

    Neither argument is changed; a mapping of ``over`` that replaces a non-mapping is taken as it is.
    """
    out = dict(base)
    for k, v in over.items():
        old = out.get(k)
        out[k] = deep_merge(old, v) if isinstance(v, Mapping) and isinstance(old, Mapping) else v
    return out
