"""Every S3 call answers 403 AccessDenied (injected below botocore's parser, as AWS would send it)."""

from botocore.awsrequest import AWSResponse

DENIED = b"<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"


def deny(request, **_):
    return AWSResponse(request.url, 403, {"Content-Type": "application/xml"}, _Raw(DENIED))


class _Raw:
    def __init__(self, body):
        self._body = body

    def stream(self, **_):
        yield self._body


async def run(session, context, logger):
    s3 = session.client("s3")  # the cached client: the harness must undo this handler afterwards
    s3.meta.events.register("before-send", deny)
    s3.head_bucket(Bucket="any")
    return {"validated": [], "success": True, "message": "unreachable"}
