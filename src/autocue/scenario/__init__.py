"""YAML scenarios (placeholder public surface; completed below)."""
