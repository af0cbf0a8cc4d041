"""The service models every evaluation reads (`harness.core.botocore_models`): read once, without the documentation
that nothing reads, and with what is read of it kept as botocore would give it."""

from __future__ import annotations

import pytest
from botocore.model import ServiceModel

from harness._compat.botocore import create_loader
from harness.core.botocore_models import find_service_model, without_documentation
from harness.core.secret_shapes import PRESIGNED_NAME, secrets_of

# services whose answers hold members documented as presigned URLs (lambda's Code.Location, ecr's layer URL, ...)
PRESIGNING = ("lambda", "ecr", "ec2", "sagemaker", "emr", "connect", "amplify")


def _documented(model: ServiceModel) -> dict[tuple[str, str], str]:
    """Each structure member's documentation, as botocore gives it (its own, else its shape's)."""
    found = {}
    for name in model.shape_names:
        shape = model.shape_for(name)
        if shape.type_name == "structure":
            for member_name, member in shape.members.items():
                found[(name, member_name)] = member.documentation
    return found


@pytest.mark.parametrize("service", PRESIGNING)
def test_a_member_that_may_be_a_presigned_url_keeps_its_documentation(service: str) -> None:
    """What `secret_shapes` reads (a presigned URL's member by its documentation) is what botocore's whole model says,
    and every other documentation text is gone."""
    whole = ServiceModel(create_loader().load_service_model(service, "service-2"), service)
    pruned = ServiceModel(create_loader(without_documentation).load_service_model(service, "service-2"), service)
    kept, left = _documented(whole), _documented(pruned)
    assert kept.keys() == left.keys()
    for (shape, member), text in kept.items():
        if PRESIGNED_NAME.search(member.lower()):
            assert left[(shape, member)] == text, (shape, member)
        else:
            assert not left[(shape, member)], (shape, member)
    assert all(not pruned.operation_model(name).documentation for name in pruned.operation_names)
    assert not pruned.documentation
    presigned = [
        (shape, member)
        for shape, member in kept
        if secrets_of(whole).member(whole.shape_for(shape), member) is not None
    ]
    assert presigned == [
        (shape, member)
        for shape, member in left
        if secrets_of(pruned).member(pruned.shape_for(shape), member) is not None
    ]


def test_the_models_evaluations_read_carry_no_documentation() -> None:
    """The shared loader's models (the template's, each evaluation's) are the pruned ones; other data files whole."""
    model = find_service_model("ec2")
    assert model is not None
    assert not model.operation_model("DescribeVpcs").documentation
    assert without_documentation("/x/endpoints.json", {"documentation": "kept"}) == {"documentation": "kept"}


def test_client_context_parameters_keep_their_documentation() -> None:
    """botocore reads a client context parameter's documentation by key (S3's): it is not pruned."""
    model = ServiceModel(create_loader(without_documentation).load_service_model("s3", "service-2"), "s3")
    assert model.client_context_parameters
