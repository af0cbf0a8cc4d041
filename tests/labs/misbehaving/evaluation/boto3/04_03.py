"""A plain def run: the harness needs a coroutine function."""


def run(session, context, logger):
    return {}
