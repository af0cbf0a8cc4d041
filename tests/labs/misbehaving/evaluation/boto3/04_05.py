"""Raises while importing."""

raise RuntimeError("this module cannot be imported")
