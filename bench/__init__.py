"""Benchmarks (`make bench`): figures with a baseline measured in the same run, never timed tests."""
