"""Raises from a helper, to show the trimmed traceback names the module's own lines."""


def find_bucket(context):
    return context["resolved"][0]["id"]


async def run(session, context, logger):
    return find_bucket(context)
