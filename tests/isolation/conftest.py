"""The service fixtures (a real `stepeval serve`, two sandbox accounts), shared with tests/service."""

from tests.service.conftest import accounts, service_factory

__all__ = ["accounts", "service_factory"]
