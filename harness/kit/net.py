"""CIDR and security-group rule logic, as AWS means it (IPv4 and IPv6, `-1` meaning every protocol)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

WORLD_V4 = "0.0.0.0/0"
WORLD_V6 = "::/0"


def cidr_within(inner: str, outer: str) -> bool:
    """Whether network `inner` lies inside `outer` (False for malformed or mixed-family input)."""
    try:
        small, big = ipaddress.ip_network(inner, strict=False), ipaddress.ip_network(outer, strict=False)
    except ValueError:
        return False
    return small.version == big.version and small.subnet_of(big)  # type: ignore[arg-type]


@dataclass(frozen=True, order=True)
class Rule:
    """One permission: protocol ("tcp", "udp", "icmp", "all"), port range, and one source.

    `source` is a CIDR (v4 or v6), `sg:<group id>` or `pl:<prefix list id>`. Ports are None for "all ports".
    """

    protocol: str
    from_port: int | None
    to_port: int | None
    source: str

    def covers(self, protocol: str, port: int) -> bool:
        """Whether traffic of `protocol` to `port` is allowed by this rule."""
        if self.protocol not in ("all", protocol):
            return False
        return self.from_port is None or self.from_port <= port <= (self.to_port or self.from_port)

    @property
    def from_world(self) -> bool:
        return self.source in (WORLD_V4, WORLD_V6)

    def __str__(self) -> str:
        if self.protocol == "all":
            what = "all traffic"
        elif self.from_port is None or (self.from_port, self.to_port) == (0, 65535):
            what = f"{self.protocol.upper()} all ports"
        elif self.from_port == self.to_port:
            what = f"{self.protocol.upper()} {self.from_port}"
        else:
            what = f"{self.protocol.upper()} {self.from_port}-{self.to_port}"
        return f"{what} from {self.source.removeprefix('sg:')}"


PROTOCOL_NAMES = {"-1": "all", "6": "tcp", "17": "udp", "1": "icmp", "58": "icmpv6"}


def rules(permissions: Iterable[Mapping[str, Any]]) -> frozenset[Rule]:
    """Flatten boto3 `IpPermissions` (or `IpPermissionsEgress`) into one Rule per source."""
    flat: set[Rule] = set()
    for permission in permissions:
        protocol = str(permission.get("IpProtocol", "-1")).lower()
        protocol = PROTOCOL_NAMES.get(protocol, protocol)
        every_port = protocol == "all" or permission.get("FromPort") in (None, -1)
        low = None if every_port else int(permission["FromPort"])
        high = None if every_port else int(permission.get("ToPort", permission["FromPort"]))
        sources = [r["CidrIp"] for r in permission.get("IpRanges", [])]
        sources += [r["CidrIpv6"] for r in permission.get("Ipv6Ranges", [])]
        sources += [f"sg:{p['GroupId']}" for p in permission.get("UserIdGroupPairs", [])]
        sources += [f"pl:{p['PrefixListId']}" for p in permission.get("PrefixListIds", [])]
        flat.update(Rule(protocol, low, high, source) for source in sources)
    return frozenset(flat)


def tcp(port: int, source: str) -> Rule:
    """A TCP rule for one port, e.g. `tcp(80, "0.0.0.0/0")` or `tcp(80, "sg:" + group_id)`."""
    return Rule("tcp", port, port, source)
