"""botocore's service models, read once per process: for clients, the guard and the gateway alike."""

from __future__ import annotations

from functools import cache

import botocore.loaders
from botocore.model import ServiceModel

from harness._compat.botocore import CLIENT_DATA, create_loader


@cache
def shared_loader() -> botocore.loaders.Loader:
    """One loader per process, so each service model is read from disk once (as dicts: `create_loader`)."""
    return create_loader()


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
