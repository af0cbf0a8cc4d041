"""A step module of the harness's own, run by the template and by each spare before its job (never by a job):
the loader's, the event loop's and the answer's first-use work is done, and their pages copied, ahead of the job."""


async def run(session, context, logger):
    logger.debug("rehearsal")
    return {"validated": [], "success": True, "message": "rehearsal", "failure_context": None}
