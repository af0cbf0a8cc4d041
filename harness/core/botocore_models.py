"""botocore's service models, read once per process: for clients, the guard and the gateway alike."""

from __future__ import annotations

import os
from functools import cache
from typing import Any

import botocore.loaders
from botocore.model import ServiceModel

from harness._compat.botocore import CLIENT_DATA, create_loader
from harness.core.secret_shapes import PRESIGNED_NAME

SERVICE_MODEL_FILES = ("service-2.json", "service-2.json.gz")


@cache
def shared_loader() -> botocore.loaders.Loader:
    """One loader per process, so each service model is read from disk once (as dicts: `create_loader`), without
    the documentation nothing here reads (`without_documentation`)."""
    return create_loader(without_documentation)


def without_documentation(path: str, data: Any) -> Any:
    """A service model without its documentation text (a quarter of EC2's model: 2.6 MiB the template holds and every
    evaluation process's fork copies the page tables of), but for what is read: a member that may be a presigned
    URL keeps its own (`secret_shapes`: its documentation says whether it is one; a member without one of its own
    gets its shape's, as botocore would give it). Other data files are left as they are."""
    if not os.path.basename(path).endswith(SERVICE_MODEL_FILES) or not isinstance(data, dict):
        return data
    shapes = data.get("shapes") or {}
    for shape in shapes.values():
        for name, member in (shape.get("members") or {}).items():
            if not PRESIGNED_NAME.search(name.lower()):
                member.pop("documentation", None)
            elif "documentation" not in member and "documentation" in shapes.get(member.get("shape"), {}):
                member["documentation"] = shapes[member["shape"]]["documentation"]
    for shape in shapes.values():
        shape.pop("documentation", None)
    for operation in (data.get("operations") or {}).values():
        operation.pop("documentation", None)
    data.pop("documentation", None)
    return data


def warm_up() -> None:
    """Read the data every client needs, whatever its service: done while a fresh worker waits for its job."""
    loader = shared_loader()
    for name in CLIENT_DATA:
        loader.load_data(name)


@cache
def known_services() -> frozenset[str]:
    """Every service name botocore has a model of."""
    return frozenset(shared_loader().list_available_services("service-2"))


@cache
def find_service_model(service: str) -> ServiceModel | None:
    """The model of `service`, or None for a name botocore does not know."""
    if service not in known_services():
        return None
    return ServiceModel(shared_loader().load_service_model(service, "service-2"), service_name=service)


@cache
def partition_regions() -> dict[str, frozenset[str]]:
    """Each partition's regions (`aws`, `aws-cn`, `aws-us-gov`, ...), as botocore's endpoints data lists them."""
    data = shared_loader().load_data("endpoints")
    return {partition["partition"]: frozenset(partition["regions"]) for partition in data["partitions"]}
