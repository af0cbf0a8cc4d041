"""Isolation of evaluation code: confined, single-use processes forked from a clean template (see docs/dev.md)."""
