"""Isolation of evaluation code: the read-only gateway its AWS traffic must pass, and the relay it reaches it by."""
