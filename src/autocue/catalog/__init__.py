"""``autocue.catalog``: the catalogue of variants that ``scenario``, ``mockllm`` and ``runner``
read (agent CLIs, wire API names). It imports nothing of autocue above ``base``."""

__all__ = ["apis"]
