"""A plain def with the wrong parameters."""


def run(session, context):
    return {}
