"""Spins the CPU, ignoring SIGXCPU."""

import signal


async def run(session, context, logger):
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    while True:
        pass
