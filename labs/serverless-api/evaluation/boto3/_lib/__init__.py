"""Helpers the serverless lab's step modules share (imported as `from ._lib.arns import ...`)."""
