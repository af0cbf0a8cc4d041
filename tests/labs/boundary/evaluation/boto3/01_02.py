"""issue 25: a read's Action in the query (cut by '#', and not), the write's form in a text/plain body: EBS
encryption by default turned off."""

from ._lib import raw, request, result, status

WRITE = b"Action=DisableEbsEncryptionByDefault&Version=2016-11-15"


async def run(session, context, logger):
    seen = []
    for target in ("/ec2/us-east-1/?Action=GetEbsEncryptionByDefault&Version=2016-11-15#x",
                   "/ec2/us-east-1/?Action=GetEbsEncryptionByDefault&Version=2016-11-15"):
        seen.append(status(raw(request("POST", target, {"Content-Type": "text/plain"}, WRITE))))
    return result("query_02", f"statuses:{seen}")
