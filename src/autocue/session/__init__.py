"""The session layer: ``AgentSession``, the JSONL session tree (``SessionManager``), compaction and retry."""
