"""Security-group rules flattened as AWS means them, and CIDR containment (IPv4 and IPv6)."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.kit.net import WORLD_V4, WORLD_V6, Rule, cidr_within, rules, tcp


def test_rules_flatten_every_kind_of_source() -> None:
    permissions = [
        {
            "IpProtocol": "tcp",
            "FromPort": 443,
            "ToPort": 443,
            "IpRanges": [{"CidrIp": "0.0.0.0/0", "Description": "web"}, {"CidrIp": "10.0.0.0/8"}],
            "Ipv6Ranges": [{"CidrIpv6": "::/0"}],
            "UserIdGroupPairs": [{"GroupId": "sg-123", "UserId": "123456789012"}],
            "PrefixListIds": [{"PrefixListId": "pl-abc"}],
        }
    ]
    assert rules(permissions) == {
        Rule("tcp", 443, 443, "0.0.0.0/0"),
        Rule("tcp", 443, 443, "10.0.0.0/8"),
        Rule("tcp", 443, 443, "::/0"),
        Rule("tcp", 443, 443, "sg:sg-123"),
        Rule("tcp", 443, 443, "pl:pl-abc"),
    }


@pytest.mark.parametrize(
    ("permission", "expected"),
    [
        ({"IpProtocol": "-1"}, Rule("all", None, None, "0.0.0.0/0")),
        ({"IpProtocol": "-1", "FromPort": 0, "ToPort": 0}, Rule("all", None, None, "0.0.0.0/0")),
        ({"IpProtocol": "6", "FromPort": 22, "ToPort": 22}, Rule("tcp", 22, 22, "0.0.0.0/0")),
        ({"IpProtocol": "17", "FromPort": 53, "ToPort": 53}, Rule("udp", 53, 53, "0.0.0.0/0")),
        ({"IpProtocol": "TCP", "FromPort": 80, "ToPort": 81}, Rule("tcp", 80, 81, "0.0.0.0/0")),
        ({"IpProtocol": "icmp", "FromPort": -1, "ToPort": -1}, Rule("icmp", None, None, "0.0.0.0/0")),
        ({"IpProtocol": "tcp"}, Rule("tcp", None, None, "0.0.0.0/0")),
        ({"IpProtocol": "tcp", "FromPort": 8080}, Rule("tcp", 8080, 8080, "0.0.0.0/0")),
        ({}, Rule("all", None, None, "0.0.0.0/0")),
    ],
    ids=[
        "minus-one",
        "minus-one-with-ports",
        "numeric-tcp",
        "numeric-udp",
        "upper-case",
        "icmp-any",
        "no-ports",
        "no-to-port",
        "no-protocol",
    ],
)
def test_protocols_and_ports_are_normalized(permission, expected: Rule) -> None:
    assert rules([{**permission, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]) == {expected}


def test_rules_merge_permissions_and_drop_duplicates() -> None:
    web = {"IpProtocol": "tcp", "FromPort": 80, "ToPort": 80, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}
    assert rules([web, dict(web), {"IpProtocol": "tcp", "FromPort": 22, "ToPort": 22}]) == {tcp(80, WORLD_V4)}
    assert rules([]) == frozenset()


def test_tcp_builds_a_one_port_rule() -> None:
    assert tcp(80, "sg:sg-1") == Rule("tcp", 80, 80, "sg:sg-1")


@pytest.mark.parametrize(
    ("rule", "protocol", "port", "covered"),
    [
        (tcp(80, WORLD_V4), "tcp", 80, True),
        (tcp(80, WORLD_V4), "tcp", 81, False),
        (tcp(80, WORLD_V4), "udp", 80, False),
        (Rule("tcp", 1000, 2000, WORLD_V4), "tcp", 1000, True),
        (Rule("tcp", 1000, 2000, WORLD_V4), "tcp", 2000, True),
        (Rule("tcp", 1000, 2000, WORLD_V4), "tcp", 2001, False),
        (Rule("tcp", 1000, 2000, WORLD_V4), "tcp", 999, False),
        (Rule("tcp", None, None, WORLD_V4), "tcp", 65535, True),
        (Rule("all", None, None, WORLD_V4), "udp", 53, True),
        (Rule("all", None, None, WORLD_V4), "tcp", 22, True),
    ],
)
def test_covers(rule: Rule, protocol: str, port: int, covered: bool) -> None:
    assert rule.covers(protocol, port) is covered


def test_from_world() -> None:
    assert tcp(80, WORLD_V4).from_world and tcp(80, WORLD_V6).from_world
    assert not tcp(80, "10.0.0.0/8").from_world and not tcp(80, "sg:sg-1").from_world


@pytest.mark.parametrize(
    ("rule", "text"),
    [
        (tcp(22, WORLD_V4), "TCP 22 from 0.0.0.0/0"),
        (Rule("tcp", 1000, 2000, "10.0.0.0/8"), "TCP 1000-2000 from 10.0.0.0/8"),
        (Rule("tcp", 0, 65535, WORLD_V4), "TCP all ports from 0.0.0.0/0"),
        (Rule("udp", None, None, WORLD_V6), "UDP all ports from ::/0"),
        (Rule("all", None, None, WORLD_V4), "all traffic from 0.0.0.0/0"),
        (tcp(80, "sg:sg-123"), "TCP 80 from sg-123"),
        (tcp(443, "pl:pl-abc"), "TCP 443 from pl:pl-abc"),
    ],
)
def test_a_rule_reads_as_a_sentence(rule: Rule, text: str) -> None:
    assert str(rule) == text


@pytest.mark.parametrize(
    ("inner", "outer", "within"),
    [
        ("10.0.1.0/24", "10.0.0.0/16", True),
        ("10.0.0.0/16", "10.0.0.0/16", True),
        ("10.0.0.0/16", "10.0.1.0/24", False),
        ("10.1.0.0/24", "10.0.0.0/16", False),
        ("10.0.1.7/24", "10.0.0.0/16", True),  # host bits set: read as its network, as AWS does
        ("0.0.0.0/0", "0.0.0.0/0", True),
        ("2001:db8:1::/64", "2001:db8::/32", True),
        ("2001:db9::/64", "2001:db8::/32", False),
        ("10.0.1.0/24", "::/0", False),
        ("::/0", "0.0.0.0/0", False),
        ("not-a-cidr", "10.0.0.0/16", False),
        ("10.0.1.0/24", "10.0.0.0/33", False),
        ("", "10.0.0.0/16", False),
    ],
    ids=[
        "inside",
        "equal",
        "bigger",
        "outside",
        "host-bits",
        "world",
        "v6-inside",
        "v6-outside",
        "v4-in-v6",
        "v6-in-v4",
        "malformed-inner",
        "malformed-outer",
        "empty",
    ],
)
def test_cidr_within(inner: str, outer: str, within: bool) -> None:
    assert cidr_within(inner, outer) is within


ipv4_networks = st.builds(
    lambda address, prefix: ipaddress.ip_network((address, prefix), strict=False),
    st.integers(0, 2**32 - 1),
    st.integers(1, 30),
)


@given(network=ipv4_networks, extra=st.integers(1, 2), data=st.data())
def test_a_subnet_is_within_its_parent_and_not_its_sibling(network, extra: int, data: st.DataObject) -> None:
    subnets = list(network.subnets(prefixlen_diff=extra))
    child = data.draw(st.sampled_from(subnets))
    assert cidr_within(str(child), str(network))
    assert not cidr_within(str(network), str(child))
    sibling = next(s for s in network.supernet().subnets() if s != network)  # disjoint, same size
    assert not cidr_within(str(child), str(sibling))
    assert not cidr_within(str(network), str(sibling))
