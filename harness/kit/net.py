"""CIDR and security-group rule logic, as AWS means it (IPv4 and IPv6, `-1` meaning every protocol)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.kit.later import later

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
        flat.update(canonical(Rule(protocol, low, high, source)) for source in sources)
    return frozenset(flat)


def canonical(rule: Rule) -> Rule:
    """The rule as the kit compares it: its source canonical (`source_of`), and TCP or UDP on 0-65535 as every
    port."""
    every_port = rule.protocol in ("tcp", "udp") and (rule.from_port, rule.to_port) == (0, 65535)
    low, high = (None, None) if every_port else (rule.from_port, rule.to_port)
    return Rule(rule.protocol, low, high, source_of(rule.source))


def source_of(source: str | Mapping[str, Any]) -> str:
    """A rule's source as the kit compares it: a CIDR in canonical form (`10.0.0.0/16`, `2001:db8::/32`), a
    security group as `sg:ID` (given as a described group, its id, its ARN or `sg:ID`), a prefix list as `pl:ID`."""
    if isinstance(source, Mapping):
        return f"sg:{source.get('GroupId')}"
    text = str(source).strip()
    if text.startswith(("sg:", "pl:")):
        return text
    if text.startswith("sg-"):
        return f"sg:{text}"
    if text.startswith("arn:") and ":security-group/" in text:
        return f"sg:{text.rsplit('/', 1)[-1]}"
    try:
        return str(ipaddress.ip_network(text, strict=False))
    except ValueError:
        return text


def same_network(a: str | None, b: str | None) -> bool:
    """Whether two CIDR blocks are one network, however spelled (False when either is not a CIDR)."""
    try:
        return ipaddress.ip_network(str(a), strict=False) == ipaddress.ip_network(str(b), strict=False)
    except ValueError:
        return False


@later
def tcp(port: int, source: str | Mapping[str, Any]) -> Rule:
    """A TCP rule for one port from a CIDR or a security group: `tcp(80, "0.0.0.0/0")`, `tcp(5432, app_group)`
    (a described group, or its id or ARN; `"sg:" + id` works too)."""
    return canonical(Rule("tcp", port, port, source_of(source)))
