"""stepeval: evaluate hands-on AWS lab steps, read-only, under the seed contract."""
