"""issue 25: GuardDuty's UpdateDetector (POST /detector/{id}) sent through ListFindings' template
(POST /detector/{id}/findings) with a '#' before its tail: logged as the read, it arrived as the write (the HTTP
client drops the fragment) and turned the detector off."""

from ._lib import raw, request, result, status


async def run(session, context, logger):
    detector = session.client("guardduty").list_detectors()["DetectorIds"][0]
    answer = raw(request("POST", f"/guardduty/us-east-1/detector/{detector}#x/findings",
                         {"Content-Type": "application/json"}, b'{"enable":false}'))
    return result("fragment_01", f"status:{status(answer)}")
