"""Which account an evaluation reaches and with what: plain data, cheap to import, sent to workers as JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Credentials:
    """Temporary or long-term AWS credentials, handed to a worker for one evaluation."""

    access_key: str
    secret_key: str
    token: str | None = None

    def __repr__(self) -> str:
        return (
            f"Credentials(access_key={self.access_key[:4]}..., secret_key=***, token={'***' if self.token else None})"
        )


@dataclass(frozen=True)
class Account:
    """Where an evaluation reaches: credentials, region, and an optional emulator endpoint."""

    credentials: Credentials
    region: str
    endpoint_url: str | None = None

    def to_message(self) -> dict[str, Any]:
        """A plain dict to send to a worker."""
        return asdict(self)

    @classmethod
    def from_message(cls, raw: dict[str, Any]) -> Account:
        """The inverse of `to_message`."""
        return cls(Credentials(**raw["credentials"]), raw["region"], raw.get("endpoint_url"))


EMULATOR_CREDENTIALS = Credentials("testing", "testing")
"""What emulators (moto, LocalStack) accept: any credentials will do."""
