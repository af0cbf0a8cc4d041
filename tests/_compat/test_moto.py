"""The moto internals behind harness/_compat/moto.py, and the one tests/kit/test_identity_vs_moto.py reads: each
test fails when one moves or changes shape. Whatever a test patches is put back after it."""

from __future__ import annotations

import inspect
import json
import threading

import boto3
import pytest
from moto import mock_aws
from moto.backends import get_backend
from moto.core import responses
from moto.core.base_backend import AccountSpecificBackend, BaseBackend
from moto.core.utils import get_service_model
from moto.ec2.models import EC2Backend
from moto.ec2.responses import EC2Response
from moto.iam.access_control import IAMPolicy, PermissionResult
from moto.iam.models import IAMBackend
from moto.moto_server.werkzeug_app import MotoRequestHandler, create_backend_app
from werkzeug.serving import WSGIRequestHandler

from harness._compat import moto as door
from harness._compat.werkzeug import KeptAliveHandler

REGION = "us-east-1"
OTHER_REGION = "eu-north-1"


def rules(app) -> list[tuple[str, str]]:
    return sorted((str(rule), rule.endpoint) for rule in app.url_map.iter_rules())


def test_apps_built_on_unbuilt_backends_route_as_built_ones_and_build_no_backend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The root builds moto's apps without building backends: moto must read only the class's URLs."""
    services = ["ec2", "s3", "elbv2", "iam", "dynamodb", "lambda", "sts"]
    door.reset_accounts()
    monkeypatch.setattr(BaseBackend, "reset", lambda self: None)  # as the root has (skip_rebuild_on_reset)
    built: list[str] = []
    others: list[str] = []
    init, ours = EC2Backend.__init__, threading.get_ident()

    def counted(self: EC2Backend, *args: object, **kwargs: object) -> None:
        """Built on this thread, or not: a thread an earlier test of this process left may build its own meanwhile."""
        (built if threading.get_ident() == ours else others).append("ec2")
        init(self, *args, **kwargs)

    monkeypatch.setattr(EC2Backend, "__init__", counted)
    app = door.server_app(services)
    assert built == []
    assert not door.has_backend("ec2", REGION) or others
    unbuilt = {name: rules(built_app) for name, built_app in app.app_instances.items()}
    assert set(unbuilt) == {"ec2", "s3", "elbv2", "iam", "dynamodb", "sts"}  # moto's module for lambda: awslambda
    assert unbuilt == {name: rules(create_backend_app(name)) for name in unbuilt}
    assert all(unbuilt.values())
    door.reset_accounts()


def test_ids_seeded_alike_are_alike_and_a_detached_backend_is_not_kept() -> None:
    own = door.random_state()
    vpcs = []
    for _ in range(2):
        door.seed_ids(7)
        backend = door.detached_backend("ec2", OTHER_REGION)
        assert isinstance(backend, EC2Backend)
        assert not door.has_backend("ec2", OTHER_REGION)
        vpcs.append(sorted(backend.vpcs))
    door.set_random_state(own)
    assert door.random_state() == own
    assert vpcs[0] == vpcs[1] and vpcs[0]
    door.seed_ids(8)
    assert sorted(door.detached_backend("ec2", OTHER_REGION).vpcs) != vpcs[0]
    door.set_random_state(own)


def test_a_backend_offered_is_taken_on_first_use_and_none_lets_moto_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AccountSpecificBackend, "__getitem__", AccountSpecificBackend.__getitem__)
    assert "self.backend(region_name" in inspect.getsource(AccountSpecificBackend.__getitem__)  # built on request
    offered = door.detached_backend("sns", OTHER_REGION)
    asked: list[tuple[str, str, str]] = []

    def offer(service: str, account: str, region: str) -> object | None:
        asked.append((service, account, region))
        return offered if service == "sns" else None

    door.offer_backends(offer)
    accounts = get_backend("sns")[door.DEFAULT_ACCOUNT_ID]
    assert accounts[OTHER_REGION] is offered
    assert accounts[OTHER_REGION] is offered  # asked once: it is kept
    assert asked == [("sns", door.DEFAULT_ACCOUNT_ID, OTHER_REGION)]
    assert get_backend("sqs")[door.DEFAULT_ACCOUNT_ID][OTHER_REGION] is not None  # moto built it
    door.reset_accounts()
    assert not door.has_backend("sns", OTHER_REGION)


def test_a_backend_reset_does_nothing_once_asked_and_the_accounts_reset_drops_every_backend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(BaseBackend, "reset", BaseBackend.reset)
    sqs = get_backend("sqs")[door.DEFAULT_ACCOUNT_ID][OTHER_REGION]
    sqs.create_queue("guard")
    sqs.reset()
    assert sqs.queues == {}  # moto's own reset empties it
    sqs.create_queue("guard")
    door.skip_rebuild_on_reset()
    sqs.reset()
    assert list(sqs.queues) == ["guard"]
    door.reset_accounts()
    assert not door.has_backend("sqs", OTHER_REGION)


@pytest.mark.moto
def test_a_distributions_origin_keeps_its_origin_access_control_once_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from moto.cloudfront.models import Origin

    monkeypatch.setattr(Origin, "__init__", Origin.__init__)
    config = {"Id": "site", "DomainName": "site.s3.amazonaws.com", "OriginAccessControlId": "E2OAC"}
    assert not getattr(Origin(dict(config)), "origin_access_control_id", "")  # moto 5.2 drops it
    door.keep_origin_access_controls()
    assert Origin(dict(config)).origin_access_control_id == "E2OAC"
    distribution = {
        "CallerReference": "guard", "Comment": "", "Enabled": True,
        "Origins": {"Quantity": 1, "Items": [{**config, "S3OriginConfig": {"OriginAccessIdentity": ""}}]},
        "DefaultCacheBehavior": {"TargetOriginId": "site", "ViewerProtocolPolicy": "https-only", "CachePolicyId": "c"},
    }  # fmt: skip
    with mock_aws():  # read back as a client reads it: moto's serializer answers the kept attribute by its name
        client = boto3.client("cloudfront", region_name=REGION)
        made = client.create_distribution(DistributionConfig=distribution)["Distribution"]["Id"]
        origin = client.get_distribution(Id=made)["Distribution"]["DistributionConfig"]["Origins"]["Items"][0]
    assert origin["OriginAccessControlId"] == "E2OAC"


def test_what_moto_computes_on_each_request_is_cached_where_moto_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from moto import backends

    monkeypatch.setattr(backends, "list_of_moto_modules", backends.list_of_moto_modules)
    monkeypatch.setattr(responses, "method_names_from_class", responses.method_names_from_class)
    assert "method_names_from_class(self.__class__)" in inspect.getsource(responses.BaseResponse)
    door.cache_request_path(door.server_app(["ec2"]))
    assert backends.list_of_moto_modules() is backends.list_of_moto_modules()
    assert "ec2" in backends.list_of_moto_modules()
    assert "describe_vpcs" in responses.method_names_from_class(EC2Response)
    assert get_service_model("ec2").service_name == "ec2"  # loaded ahead by cache_request_path
    assert responses.method_names_from_class.cache_info().currsize >= 1  # type: ignore[attr-defined]


def test_aws_managed_policies_are_built_once_and_each_backend_gets_its_own_copies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MOTO_IAM_LOAD_MANAGED_POLICIES", "true")
    builds: list[str] = []
    build = IAMBackend._init_aws_policies
    monkeypatch.setattr(IAMBackend, "_init_aws_policies", lambda self: builds.append(self.account_id) or build(self))
    door.build_managed_policies_once()
    first, second = (IAMBackend(region_name="global", account_id="123456789012") for _ in range(2))
    assert builds == ["123456789012"]
    assert len(first.aws_managed_policies) > 1000
    assert [p.name for p in first.aws_managed_policies] == [p.name for p in second.aws_managed_policies]
    assert first.aws_managed_policies[0] is not second.aws_managed_policies[0]


def test_the_request_handler_is_motos_with_answers_kept_alive() -> None:
    handler = door.request_handler()
    assert issubclass(handler, MotoRequestHandler) and issubclass(MotoRequestHandler, WSGIRequestHandler)
    assert handler.make_environ is MotoRequestHandler.make_environ  # moto keeps headers with underscores
    assert handler.run_wsgi is KeptAliveHandler.run_wsgi
    assert door.request_handler() is handler


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ({"Effect": "Allow", "Action": "s3:Get*", "Resource": "*"}, PermissionResult.PERMITTED),
        ({"Effect": "Deny", "Action": "s3:*", "Resource": "arn:aws:s3:::site/*"}, PermissionResult.DENIED),
        ({"Effect": "Allow", "Action": "sqs:*", "Resource": "*"}, PermissionResult.NEUTRAL),
    ],
)
def test_access_control_answers_a_policy_as_the_identity_tests_ask_it(statement: dict, expected: object) -> None:
    """tests/kit/test_identity_vs_moto.py asks moto's `IAMPolicy(...).is_action_permitted(action, resource)`."""
    document = json.dumps({"Version": "2012-10-17", "Statement": [statement]})
    assert IAMPolicy(document).is_action_permitted("s3:GetObject", "arn:aws:s3:::site/index.html") == expected
