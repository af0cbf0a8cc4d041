"""Isolation of evaluation code: single-use confined processes forked from a clean template, and the read-only
gateway their AWS traffic must pass, with the relay they reach it by (see docs/dev.md, 'Isolation')."""
