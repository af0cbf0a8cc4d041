"""The read rules against real read-only code and against every model botocore has.

- Prowler's AWS checks (tests/core/data/prowler_aws_calls.json: the 455 operations its service classes call, with
  the commit they were extracted from): none may be refused; each refusal is printed with its reason.
- Every read-named operation of every model: what each rule refuses, what the gateway answers with secrets
  blanked, and which parameters it refuses, printed for review (`pytest -s`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
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


@dataclass
class Review:
    """What the rules do to a set of reads: refuse (and why), relay with secrets blanked (where), refuse when a
    parameter asks for secrets (which)."""

    refused: dict[str, str] = field(default_factory=dict)
    blanked: dict[str, list[str]] = field(default_factory=dict)
    asked: dict[str, list[str]] = field(default_factory=dict)

    def judge(self, service: str, operation: str, model: ServiceModel) -> None:
        name, secrets = f"{service}:{operation}", secrets_of(model)
        why = refusal(service, operation, model)
        if why is not None:
            self.refused[name] = why
            return
        if found := secrets.in_output(operation):
            self.blanked[name] = found
        if parameters := secrets.parameters(operation):
            self.asked[name] = [parameter for parameter, _ in parameters]

    def show(self, title: str) -> None:
        print(f"\n{title}: {len(self.refused)} refused, {len(self.blanked)} relayed blanked, {len(self.asked)} "
              "refused when a parameter asks for secrets")  # fmt: skip
        for kind, found in (("refused", self.refused), ("blanked", self.blanked), ("asks", self.asked)):
            for name, what in sorted(found.items()):
                print(f"  {kind} {name}: {what if isinstance(what, str) else ', '.join(what)}")


@pytest.mark.timeout(900)  # reads ~90 models; on a loaded machine past the suite's default
def test_no_read_of_prowlers_checks_is_refused() -> None:
    corpus = json.loads(CORPUS.read_text())
    assert corpus["commit"] and len(corpus["calls"]) > 400
    models: dict[str, ServiceModel] = {}
    review = Review()
    for call in corpus["calls"]:
        service, operation = call.split(":")
        review.judge(service, operation, models.setdefault(service, fresh_model(service)))
    review.show(f"{len(corpus['calls'])} calls of Prowler {corpus['commit'][:12]}")
    assert all(call not in review.refused for call in MUST_PASS)
    assert review.refused == {call: review.refused[call] for call in REFUSED_ON_PURPOSE}, review.refused


@pytest.mark.timeout(1800)  # reads all of botocore's ~445 models
def test_what_each_rule_does_over_every_model() -> None:
    review = Review()
    for service in botocore.loaders.create_loader().list_available_services("service-2"):
        model = fresh_model(service)
        for operation in model.operation_names:
            if operation.startswith(READ_PREFIXES) or f"{service}:{operation}" in ALLOWED_READS:
                review.judge(service, operation, model)
    by_rule = Counter(why.split(":")[0].split(",")[0] for why in review.refused.values())
    review.show(f"every read-named operation of every model (refused by rule: {dict(by_rule)})")
    refused, blanked, asked = review.refused, review.blanked, review.asked
    # the findings, each caught by the rule meant for its class
    assert refused["cognito-idp:ListUserPoolClientSecrets"].startswith("named for a credential")
    assert refused["emr-containers:GetManagedEndpointSessionCredentials"].startswith("named for a credential")
    assert refused["stepfunctions:GetActivityTask"].startswith("side-effect list")
    assert "jobDetails.data.artifactCredentials.secretAccessKey" in blanked["codepipeline:GetJobDetails"]
    assert blanked["appsync:ListApiKeys"] == ["apiKeys[].id"]
    assert "ConnectionList[].ConnectionProperties{secret entries}" in blanked["glue:GetConnections"]
    assert asked["ssm:GetParameterHistory"] == ["WithDecryption"]
    assert asked["apigateway:GetApiKeys"] == ["includeValues"]
    assert set(by_rule) == {"deny list", "side-effect list", "named for a credential"}
    assert len(refused) < 100 and len(blanked) < 400  # a rule that starts refusing plain reads shows here


@pytest.mark.parametrize("call", MUST_PASS)
def test_report_jobs_and_plain_reads_pass(call: str) -> None:
    service, operation = call.split(":")
    assert refusal(service, operation) is None
