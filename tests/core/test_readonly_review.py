"""The read rules against real read-only code and against every model botocore has.

- Prowler's AWS checks (tests/core/data/prowler_aws_calls.json: the 455 operations its service classes call, with
  the commit they were extracted from): none may be refused; each refusal is printed with its reason.
- Every read-named operation of every model: what each rule refuses, what the gateway answers with secrets
  blanked, which parameters it refuses, and which members botocore marks `sensitive` it relays as they are
  (where a secret the rules miss shows: the lists in harness/core/secret_shapes.py came from reading it), printed
  for review (`pytest -s`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import botocore.loaders
import pytest
from botocore.model import ServiceModel

from harness.core.readonly import ALLOWED_READS, READ_PREFIXES, refusal
from harness.core.secret_shapes import children, secrets_of

CORPUS = Path(__file__).parent / "data" / "prowler_aws_calls.json"
MUST_PASS = ("glue:SearchTables", "iam:GetCredentialReport", "iam:GetServiceLastAccessedDetails")
# Calls of the corpus the rules refuse on purpose, each with why it is right.
REFUSED_ON_PURPOSE: dict[str, str] = {
    # jobs, not reads: the report exists afterwards, a bit the next evaluation reads (issue 31)
    "iam:GenerateCredentialReport": "report job",
    "iam:GenerateServiceLastAccessedDetails": "report job",
}


@cache
def services() -> tuple[str, ...]:
    """The services botocore has a model of (a listing stats each of ~445 directories: read once)."""
    return tuple(botocore.loaders.create_loader().list_available_services("service-2"))


class ModelLoader(botocore.loaders.Loader):
    """botocore's loader, its list of services the one read once (which each load checks its service against)."""

    def list_available_services(self, type_name: str) -> list[str]:
        return list(services()) if type_name == "service-2" else super().list_available_services(type_name)


def fresh_model(service: str) -> ServiceModel:
    """A model read by a loader of its own, dropped after: the review reads all of them."""
    return ServiceModel(ModelLoader().load_service_model(service, "service-2"), service)


@dataclass
class Review:
    """What the rules do to a set of reads: refuse (and why), relay with secrets blanked (where), refuse when a
    parameter asks for secrets (which)."""

    refused: dict[str, str] = field(default_factory=dict)
    blanked: dict[str, list[str]] = field(default_factory=dict)
    asked: dict[str, list[str]] = field(default_factory=dict)
    sensitive: dict[str, list[str]] = field(default_factory=dict)  # botocore's trait on what is relayed as it is

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
        if kept := sensitive_kept(model, operation):
            self.sensitive[name] = kept

    def show(self, title: str) -> None:
        print(f"\n{title}: {len(self.refused)} refused, {len(self.blanked)} relayed blanked, {len(self.asked)} "
              f"refused when a parameter asks for secrets, {len(self.sensitive)} relayed with members botocore "
              "marks sensitive (names, addresses, descriptions, ...) as they are")  # fmt: skip
        kinds = {"refused": self.refused, "blanked": self.blanked, "asks": self.asked, "sensitive": self.sensitive}
        for kind, found in kinds.items():
            for name, what in sorted(found.items()):
                print(f"  {kind} {name}: {what if isinstance(what, str) else ', '.join(what)}")


def sensitive_kept(model: ServiceModel, operation: str) -> list[str]:
    """The members of `operation`'s answer botocore marks `sensitive` that no rule blanks (`Structure.member`):
    what a reviewer reads to find a secret the rules miss (it goes to the lists in secret_shapes.py)."""
    secrets, output = secrets_of(model), model.operation_model(operation).output_shape
    kept: list[str] = []
    seen, pending = set(), [output] if output is not None else []
    while pending:
        shape = pending.pop()
        if shape.type_name == "structure":
            for name, member in shape.members.items():
                if member.metadata.get("sensitive") and secrets.member(shape, name) is None:
                    kept.append(f"{shape.name}.{name}")
        for child in children(shape):
            if child.name not in seen:
                seen.add(child.name)
                pending.append(child)
    return sorted(kept)


@pytest.mark.timeout(900)  # reads ~90 models; on a loaded machine past the suite's default
def test_no_read_of_prowlers_checks_is_refused() -> None:
    corpus = json.loads(CORPUS.read_text())
    assert corpus["commit"] and len(corpus["calls"]) > 400
    models: dict[str, ServiceModel] = {}
    review = Review()
    for call in corpus["calls"]:
        service, operation = call.split(":")
        if service not in models:  # each read once (setdefault would read it again for every call)
            models[service] = fresh_model(service)
        review.judge(service, operation, models[service])
    review.show(f"{len(corpus['calls'])} calls of Prowler {corpus['commit'][:12]}")
    assert all(call not in review.refused for call in MUST_PASS)
    assert review.refused == {call: review.refused[call] for call in REFUSED_ON_PURPOSE}, review.refused
    assert all(review.refused[call].startswith(why) for call, why in REFUSED_ON_PURPOSE.items())


@pytest.mark.timeout(1800)  # reads all of botocore's ~445 models
def test_what_each_rule_does_over_every_model() -> None:
    review = Review()
    for service in services():
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
    assert refused["ssm:GetParameterHistory"].startswith("deny list")  # every value it held, as GetParameter
    assert refused["cloudformation:GetTemplate"].startswith("deny list")
    assert asked["apigateway:GetApiKeys"] == ["includeValues"]
    # found by reading the sensitive members no rule blanked: each now refused or blanked by a rule or a list
    assert refused["acm:GetAcmeExternalAccountBindingCredentials"].startswith("named for a credential")
    assert refused["cognito-idp:GetDerivedToken"].startswith("named for a credential")
    assert refused["storagegateway:DescribeChapCredentials"].startswith("named for a credential")
    assert refused["ec2:GetVpnConnectionDeviceSampleConfiguration"].startswith("deny list")
    assert "VpnConnections[].CustomerGatewayConfiguration" in blanked["ec2:DescribeVpnConnections"]
    assert blanked["ivs:GetStreamKey"] == ["streamKey.value"]
    assert "ingestConfiguration.streamKey" in blanked["ivs-realtime:GetIngestConfiguration"]
    assert blanked["kafkaconnect:DescribeConnector"] == ["connectorConfiguration{secret entries}"]
    # presigned URLs, by their documentation (the rest of the answer is the settings)
    assert "Code.Location" in blanked["lambda:GetFunction"] and blanked["ecr:GetDownloadUrlForLayer"] == ["downloadUrl"]
    assert blanked["lambda:GetLayerVersion"] == ["Content.Location"]
    assert "VpnConnection.CustomerGatewayConfiguration" not in review.sensitive.get("ec2:DescribeVpnConnections", [])
    assert "AlternateContact.Name" in review.sensitive["account:GetAlternateContact"]  # the trait is no rule
    assert set(by_rule) == {"deny list", "side-effect list", "named for a credential"}
    assert len(refused) < 100 and len(blanked) < 400  # a rule that starts refusing plain reads shows here


@pytest.mark.parametrize("call", MUST_PASS)
def test_plain_reads_pass(call: str) -> None:
    service, operation = call.split(":")
    assert refusal(service, operation) is None
