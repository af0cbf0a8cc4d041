"""Step 02.01: a Python 3.12 function, handler app.handler, running as the role, TABLE_NAME set."""

import io
import zipfile

from botocore.exceptions import ClientError

SOURCE = (
    "import os\n\n\ndef handler(event, context):\n    return {'statusCode': 200, 'body': os.environ['TABLE_NAME']}\n"
)


def _code():
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr(zipfile.ZipInfo("app.py", date_time=(2026, 1, 1, 0, 0, 0)), SOURCE)  # same bytes every time
    return archive.getvalue()


async def run(session, context, logger):
    handles = {h["name"]: h["id"] for h in context["resolved"]}
    try:
        role_arn = session.client("iam").get_role(RoleName=handles["01_02_role"])["Role"]["Arn"]
        session.client("lambda").create_function(
            FunctionName="items-api",
            Runtime="python3.12",
            Handler="app.handler",
            Role=role_arn,
            Code={"ZipFile": _code()},
            Environment={"Variables": {"TABLE_NAME": handles["01_01_table"]}},
        )
        return {
            "success": True,
            "resources": [{"name": "02_01_function", "type": "AWS::Lambda::Function", "id": "items-api"}],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
