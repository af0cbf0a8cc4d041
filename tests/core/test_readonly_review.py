"""The read rules against real read-only code and against every model botocore has.

- Prowler's AWS checks (tests/core/data/prowler_aws_calls.json: the 455 operations its service classes call, with
  the commit they were extracted from): none may be refused; each refusal is printed with its reason.
- Every read-named operation of every model: what each rule refuses, what the gateway answers with secrets
  blanked, and which parameters it refuses, printed for review (`pytest -s`).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import botocore.loaders
import pytest
from botocore.model import ServiceModel

from harness.core.readonly import ALLOWED_READS, READ_PREFIXES, refusal
from harness.core.secret_shapes import secrets_of

CORPUS = Path(__file__).parent / "data" / "prowler_aws_calls.json"
MUST_PASS = ("glue:SearchTables", "iam:GenerateCredentialReport", "iam:GenerateServiceLastAccessedDetails")
# Reads of the corpus the rules refuse on purpose, each with why it is right (none today).
REFUSED_ON_PURPOSE: dict[str, str] = {}


def fresh_model(service: str) -> ServiceModel:
    """A model read by a loader of its own, dropped after: the review reads all of them."""
    return ServiceModel(botocore.loaders.create_loader().load_service_model(service, "service-2"), service)


def test_no_read_of_prowlers_checks_is_refused() -> None:
    corpus = json.loads(CORPUS.read_text())
    assert corpus["commit"] and len(corpus["calls"]) > 400
    models: dict[str, ServiceModel] = {}
    refused, blanked = {}, {}
    for call in corpus["calls"]:
        service, operation = call.split(":")
        model = models.setdefault(service, fresh_model(service))
        why = refusal(service, operation, model)
        if why is not None:
            refused[call] = why
        elif found := secrets_of(model).in_output(operation):
            blanked[call] = found
    print(f"\n{len(corpus['calls'])} calls of Prowler {corpus['commit'][:12]}: {len(refused)} refused")
    for call, why in sorted(refused.items()):
        print(f"  refused {call}: {why}")
    print(f"{len(blanked)} relayed with secrets blanked:")
    for call, paths in sorted(blanked.items()):
        print(f"  {call}: {', '.join(paths)}")
    assert all(call not in refused for call in MUST_PASS)
    assert refused == {call: refused[call] for call in REFUSED_ON_PURPOSE}, refused


def test_what_each_rule_does_over_every_model() -> None:
    available = botocore.loaders.create_loader().list_available_services("service-2")
    by_rule: Counter[str] = Counter()
    refused: dict[str, str] = {}
    blanked: dict[str, list[str]] = {}
    asked: dict[str, list[str]] = {}
    for service in available:
        model = fresh_model(service)
        secrets = secrets_of(model)
        for operation in model.operation_names:
            if not operation.startswith(READ_PREFIXES) and f"{service}:{operation}" not in ALLOWED_READS:
                continue
            name = f"{service}:{operation}"
            why = refusal(service, operation, model)
            if why is not None:
                refused[name] = why
                by_rule[why.split(":")[0].split(",")[0]] += 1
                continue
            if found := secrets.in_output(operation):
                blanked[name] = found
            if parameters := secrets.parameters(operation):
                asked[name] = [parameter for parameter, _ in parameters]
    print(f"\nrefused reads by rule: {dict(by_rule)}")
    for name, why in sorted(refused.items()):
        print(f"  {name}: {why}")
    print(f"{len(blanked)} reads relayed with secrets blanked")
    for name, paths in sorted(blanked.items()):
        print(f"  {name}: {', '.join(paths)}")
    print(f"{len(asked)} reads refused when a parameter asks for secrets")
    for name, parameters in sorted(asked.items()):
        print(f"  {name}: {', '.join(parameters)}")
    # the findings, each caught by the rule meant for its class
    assert refused["cognito-idp:ListUserPoolClientSecrets"].startswith("named for a credential")
    assert refused["emr-containers:GetManagedEndpointSessionCredentials"].startswith("named for a credential")
    assert refused["stepfunctions:GetActivityTask"].startswith("side-effect list")
    assert "jobDetails.data.artifactCredentials.secretAccessKey" in blanked["codepipeline:GetJobDetails"]
    assert blanked["appsync:ListApiKeys"] == ["apiKeys[].id"]
    assert "ConnectionList[].ConnectionProperties" in blanked["glue:GetConnections"]
    assert asked["ssm:GetParameterHistory"] == ["WithDecryption"]
    assert asked["apigateway:GetApiKeys"] == ["includeValues"]
    assert set(by_rule) == {"deny list", "side-effect list", "named for a credential"}
    assert not any(why.startswith("not named") for why in refused.values())
    assert len(refused) < 100 and len(blanked) < 400  # a rule that starts refusing plain reads shows here


@pytest.mark.parametrize("call", MUST_PASS)
def test_report_jobs_and_plain_reads_pass(call: str) -> None:
    service, operation = call.split(":")
    assert refusal(service, operation) is None
