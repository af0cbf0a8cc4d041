import io
import zipfile

from botocore.exceptions import ClientError


def _code():
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr(zipfile.ZipInfo("app.py", date_time=(2026, 1, 1, 0, 0, 0)), "def handler(event, context):\n    return {}\n")
    return archive.getvalue()


async def run(session, context, logger):
    handles = {h["name"]: h["id"] for h in context["resolved"]}
    try:
        role = session.client("iam").get_role(RoleName=handles["01_03_role"])["Role"]["Arn"]
        session.client("lambda").create_function(
            FunctionName="drafts-api", Runtime="python3.12", Handler="app.handler", Role=role, MemorySize=256,
            Code={"ZipFile": _code()}, Environment={"Variables": {"TABLE_NAME": handles["01_02_table"]}},
        )
        return {"success": True, "resources": [{"name": "01_04_function", "type": "AWS::Lambda::Function", "id": "drafts-api"}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
