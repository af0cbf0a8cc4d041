"""Held-out mistakes of serverless-api step 02.01, with decoys (see tests/heldout/README.md)."""

from harness.authoring.scenarios import mistake


def _heldout_function(aws, handles, name, *, environment=None, runtime="python3.12"):
    import io
    import zipfile

    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as archive:
        archive.writestr("app.py", "def handler(event, context):\n    return {}\n")
    role = aws.client("iam").get_role(RoleName=handles["01_02_role"])["Role"]["Arn"]
    extra = {"Environment": {"Variables": environment}} if environment is not None else {}
    aws.client("lambda").create_function(
        FunctionName=name, Runtime=runtime, Handler="app.handler", Role=role, Code={"ZipFile": code.getvalue()}, **extra
    )


@mistake(issue=r"(?i)heldout-items-fn.*TABLE_NAME")
def heldout_wrong_table_name_after_a_scratch_function(aws, handles):
    _heldout_function(aws, handles, "heldout-scratch-fn")  # older, no environment at all
    _heldout_function(aws, handles, "heldout-items-fn", environment={"TABLE_NAME": "items-old"})


@mistake(issue=r"(?i)heldout-items-fn.*runtime")
def heldout_old_runtime_beside_an_older_function(aws, handles):
    _heldout_function(aws, handles, "heldout-old-fn", environment={"TABLE": handles["01_01_table"]})
    _heldout_function(
        aws, handles, "heldout-items-fn", environment={"TABLE_NAME": handles["01_01_table"]}, runtime="python3.9"
    )
