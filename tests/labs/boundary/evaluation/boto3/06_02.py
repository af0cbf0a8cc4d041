"""Reads back what the template warmed: its sessions' regions and the clients in them."""

import json

import harness.inside.worker
from ._lib import result


async def run(session, context, logger):
    warmed = {region: sorted(f"{s}:{r}" for s, r in held._clients) for region, held in
              harness.inside.worker._sessions.items()}
    return result("read_02", json.dumps(warmed, sort_keys=True))
