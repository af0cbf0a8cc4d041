"""EC2 network validators: VPC, subnet, internet gateway, route table, security group, EIP, NAT gateway.

Each Kind describes one resource by id (read-only calls); each function returns a Requirement for
`Step.find`/`find_all`. Requirements never lean on moto's leniency: a NAT gateway must be `available` (real
AWS reports `pending` first), routes must be `active`, associations explicit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from harness.kit import net, refs
from harness.kit.kinds import Kind, LazyResource, Resource, first, id_of, register, state_in
from harness.kit.later import later
from harness.kit.require import Requirement, attribute, require


def _fetch_vpc(session: Any, vpc_id: str) -> Resource | None:
    ec2 = session.client("ec2")
    vpc = first(ec2.describe_vpcs(VpcIds=[vpc_id])["Vpcs"])
    if vpc is None:
        return None

    def attribute_value(name: str, key: str) -> Callable[[], bool]:
        return lambda: ec2.describe_vpc_attribute(VpcId=vpc_id, Attribute=name)[key]["Value"]

    return LazyResource(
        vpc,
        {
            "EnableDnsSupport": attribute_value("enableDnsSupport", "EnableDnsSupport"),
            "EnableDnsHostnames": attribute_value("enableDnsHostnames", "EnableDnsHostnames"),
        },
    )


def _fetch_subnet(session: Any, subnet_id: str) -> Resource | None:
    ec2 = session.client("ec2")
    subnet = first(ec2.describe_subnets(SubnetIds=[subnet_id])["Subnets"])
    if subnet is None:
        return None
    return LazyResource(subnet, {"RouteTableId": lambda: _route_table_of(ec2, subnet_id, subnet["VpcId"])})


def _route_table_of(ec2: Any, subnet_id: str, vpc_id: str) -> str | None:
    """The route table a subnet uses: the one explicitly associated with it, else its VPC's main route table."""
    explicit = ec2.describe_route_tables(Filters=[{"Name": "association.subnet-id", "Values": [subnet_id]}])
    for table in explicit["RouteTables"]:
        if subnet_id in _associated_subnets(table):
            return table["RouteTableId"]
    main = ec2.describe_route_tables(
        Filters=[{"Name": "vpc-id", "Values": [vpc_id]}, {"Name": "association.main", "Values": ["true"]}]
    )["RouteTables"]
    return next((t["RouteTableId"] for t in main if _is_main(t)), None)


def _is_main(table: Resource) -> bool:
    return any(a.get("Main") for a in table.get("Associations", []))


def _fetch_igw(session: Any, igw_id: str) -> Resource | None:
    gateways = session.client("ec2").describe_internet_gateways(InternetGatewayIds=[igw_id])
    return first(gateways["InternetGateways"])


def _fetch_route_table(session: Any, table_id: str) -> Resource | None:
    ec2 = session.client("ec2")
    table = first(ec2.describe_route_tables(RouteTableIds=[table_id])["RouteTables"])
    if table is None:
        return None
    return LazyResource(table, {"ImplicitSubnets": lambda: _implicit_subnets(ec2, table)})


def _implicit_subnets(ec2: Any, table: Resource) -> list[str]:
    """The subnets a main route table serves without an explicit association: its VPC's subnets that no route
    table names (AWS lists them as associated with the main table); none for any other table."""
    if not _is_main(table):
        return []
    vpc = [{"Name": "vpc-id", "Values": [table["VpcId"]]}]
    pages = ec2.get_paginator("describe_subnets").paginate(Filters=vpc)
    subnets = {s["SubnetId"] for page in pages for s in page["Subnets"]}
    tables = ec2.get_paginator("describe_route_tables").paginate(Filters=vpc)
    explicit = {subnet for page in tables for t in page["RouteTables"] for subnet in _associated_subnets(t)}
    return sorted(subnets - explicit)


def _fetch_security_group(session: Any, group_id: str) -> Resource | None:
    return first(session.client("ec2").describe_security_groups(GroupIds=[group_id])["SecurityGroups"])


def _fetch_eip(session: Any, allocation_id: str) -> Resource | None:
    return first(session.client("ec2").describe_addresses(AllocationIds=[allocation_id])["Addresses"])


def _fetch_nat(session: Any, nat_id: str) -> Resource | None:
    gateways = session.client("ec2").describe_nat_gateways(NatGatewayIds=[nat_id])["NatGateways"]
    return first([g for g in gateways if g.get("State") not in ("deleted", "deleting")])


def _attaching(igw: Resource) -> str | None:
    """an attachment is attaching"""
    states = [a.get("State") for a in igw.get("Attachments", [])]
    return "attachment attaching" if "attaching" in states else None


VPC = register(Kind("AWS::EC2::VPC", "VPC", _fetch_vpc, settling=state_in("State", {"pending"}), retry_after_s=5))
"""`describe_vpcs`' VPC (`VpcId`, `CidrBlock`, `State`, `IsDefault`) plus `EnableDnsSupport` and
`EnableDnsHostnames` (booleans), each read when first used."""
SUBNET = register(
    Kind("AWS::EC2::Subnet", "subnet", _fetch_subnet, settling=state_in("State", {"pending"}), retry_after_s=5)
)
"""`describe_subnets`' subnet (`SubnetId`, `VpcId`, `CidrBlock`, `AvailabilityZone`, `MapPublicIpOnLaunch`) plus
`RouteTableId`, the route table it uses (its explicit one, else its VPC's main one), read when first used."""
INTERNET_GATEWAY = register(
    Kind("AWS::EC2::InternetGateway", "internet gateway", _fetch_igw, settling=_attaching, retry_after_s=5)
)
"""`describe_internet_gateways`' gateway: `{"InternetGatewayId", "Attachments": [{"VpcId", "State": "available"}]}`."""


def _main_tables(session: Any, vpc_id: str) -> list[str]:
    """The main route table a VPC was created with (a step that creates a VPC may use it with no call of its own)."""
    main = session.client("ec2").describe_route_tables(
        Filters=[{"Name": "vpc-id", "Values": [vpc_id]}, {"Name": "association.main", "Values": ["true"]}]
    )["RouteTables"]
    return [t["RouteTableId"] for t in main if _is_main(t)]


ROUTE_TABLE = register(
    Kind("AWS::EC2::RouteTable", "route table", _fetch_route_table, made_with=(("AWS::EC2::VPC", _main_tables),))
)
"""`describe_route_tables`' table (`RouteTableId`, `VpcId`, `Routes`: `[{"DestinationCidrBlock", "GatewayId" |
"NatGatewayId" | ..., "State"}]`, `Associations`: `[{"SubnetId", "Main", "AssociationState"}]`) plus
`ImplicitSubnets`, the subnets a main table serves without an explicit association, read when first used. A VPC
created in the step brings its main route table as a candidate (`Kind.made_with`)."""
SECURITY_GROUP = register(
    Kind("AWS::EC2::SecurityGroup", "security group", _fetch_security_group, title=lambda g: g.get("GroupName"))
)
"""`describe_security_groups`' group: `{"GroupId", "GroupName", "VpcId", "IpPermissions": [{"IpProtocol",
"FromPort", "ToPort", "IpRanges", "Ipv6Ranges", "UserIdGroupPairs", "PrefixListIds"}], "IpPermissionsEgress"}`."""
EIP = register(Kind("AWS::EC2::EIP", "Elastic IP", _fetch_eip))
"""`describe_addresses`' address: `{"AllocationId", "PublicIp", "Domain": "vpc", "AssociationId",
"NetworkInterfaceId"}`."""
NAT_GATEWAY = register(
    Kind("AWS::EC2::NatGateway", "NAT gateway", _fetch_nat, settling=state_in("State", {"pending"}), retry_after_s=30)
)
"""`describe_nat_gateways`' gateway: `{"NatGatewayId", "SubnetId", "VpcId", "State", "ConnectivityType",
"NatGatewayAddresses": [{"AllocationId", "PublicIp"}]}`."""


def cidr(block: str) -> Requirement:
    """The primary IPv4 CIDR block is this network (`10.0.0.0/16`; compared as networks, not as text)."""
    return require("CIDR block", block, lambda r: r.get("CidrBlock"), compare=net.same_network)


def cidr_within(outer: str) -> Requirement:
    """The CIDR block lies inside `outer` (e.g. the VPC's)."""
    return require(
        "CIDR block",
        f"within {outer}",
        lambda r: r.get("CidrBlock"),
        compare=lambda actual, _: bool(actual) and net.cidr_within(actual, outer),
    )


def dns_support(enabled: bool = True) -> Requirement:
    """The VPC resolves DNS (enableDnsSupport)."""
    return attribute("DNS support", "EnableDnsSupport", enabled)


def dns_hostnames(enabled: bool = True) -> Requirement:
    """The VPC gives instances DNS hostnames (enableDnsHostnames)."""
    return attribute(
        "DNS hostnames", "EnableDnsHostnames", enabled, hint="Edit the VPC's settings and enable DNS hostnames."
    )


@later
def in_vpc(vpc: Resource | str | None) -> Requirement:
    """Belongs to the VPC (a described VPC, its id or ARN)."""
    return refs.refers("VPC", refs.VPC, vpc, lambda r: r.get("VpcId"))


def zone(letter: str) -> Requirement:
    """In the region's availability zone whose name ends in `letter` (region-agnostic: "a" is us-east-1a...)."""
    return require(
        "availability zone",
        f"the zone ending in '{letter}'",
        lambda r: r.get("AvailabilityZone"),
        compare=lambda actual, _: bool(actual) and actual.endswith(letter),
    )


def maps_public_ip(enabled: bool = True) -> Requirement:
    """The subnet gives instances a public IPv4 address at launch (MapPublicIpOnLaunch)."""
    return attribute("auto-assign public IPv4 (MapPublicIpOnLaunch)", "MapPublicIpOnLaunch", enabled)


@later
def attached_to(vpc: Resource | str | None) -> Requirement:
    """An internet gateway attached to the VPC (a described VPC, its id or ARN)."""
    vpc_id = refs.shown(refs.VPC, vpc)
    return refs.refers_among(
        "attachment",
        refs.VPC,
        vpc,
        lambda igw: [a["VpcId"] for a in igw.get("Attachments", []) if a.get("State") in ("available", "attached")],
        explain=lambda attached: f"it is attached to {', '.join(attached) or 'no VPC'}, not to {vpc_id}.",
        hint="Attach the internet gateway to the lab's VPC.",
    )


ROUTE_TARGETS = (
    "GatewayId",
    "NatGatewayId",
    "TransitGatewayId",
    "VpcPeeringConnectionId",
    "NetworkInterfaceId",
    "InstanceId",
    "EgressOnlyInternetGatewayId",
    "LocalGatewayId",
    "CarrierGatewayId",
)


def _target(route: Resource) -> str | None:
    return next((route[key] for key in ROUTE_TARGETS if route.get(key)), None)


def _active_target(table: Resource, destination: str) -> str | None:
    for route in table.get("Routes", []):
        spelled = route.get("DestinationCidrBlock") or route.get("DestinationIpv6CidrBlock")
        if net.same_network(spelled, destination) and route.get("State", "active") == "active":
            return _target(route)
    return None


@later
def route_to(destination: str, target: Resource | str | None, *, key: str) -> Requirement:
    """An active route for `destination` (a CIDR, compared as a network) whose target is `target` (a described
    gateway read under `key`, e.g. "NatGatewayId", or its id or ARN)."""
    target_id = id_of(target, key)
    return require(
        f"route {destination}",
        target_id,
        lambda table: _active_target(table, destination),
        compare=lambda actual, expected: refs.current().same(refs.ANY, actual, expected),
        explain=lambda actual: (
            f"its route {destination} goes to {actual}, not to {target_id}."
            if actual
            else f"it has no active route {destination} to {target_id}."
        ),
    )


@later
def associated_with(subnets: Iterable[Resource | str | None], *, explicit: bool = False) -> Requirement:
    """Associated with every one of `subnets` (described subnets, their ids or ARNs), as AWS counts it: explicitly,
    or, for the VPC's main route table, implicitly (a subnet with no explicit association uses the main table).
    `explicit=True` counts explicit associations only."""
    wanted = list(subnets)

    def missing(actual: list[str]) -> list[str]:
        return sorted(
            str(refs.shown(refs.SUBNET, s)) for s in wanted if not refs.current().among(refs.SUBNET, actual, s)
        )

    def associated(table: Resource) -> list[str]:
        implicit = [] if explicit or not _is_main(table) else list(table.get("ImplicitSubnets") or [])
        return sorted({*_associated_subnets(table), *implicit})

    return require(
        "subnet associations",
        sorted(str(refs.shown(refs.SUBNET, s)) for s in wanted),
        associated,
        compare=lambda actual, _: not missing(actual),
        explain=lambda actual: (
            f"it is associated with {', '.join(actual) or 'no subnet'}; "
            f"it should be associated with {', '.join(missing(actual))} too."
        ),
        hint="Edit the route table's subnet associations.",
    )


@later
def uses_route_table(table: Resource | str | None) -> Requirement:
    """The subnet's traffic follows `table` (a described route table or its id): the table explicitly associated
    with it, else its VPC's main route table, as AWS routes it."""
    return refs.refers(
        "route table",
        refs.ROUTE_TABLE,
        table,
        lambda subnet: subnet.get("RouteTableId"),
        hint="Associate the subnet with the route table.",
    )


def _associated_subnets(table: Resource) -> list[str]:
    return sorted(
        a["SubnetId"]
        for a in table.get("Associations", [])
        if a.get("SubnetId") and a.get("AssociationState", {}).get("State", "associated") == "associated"
    )


def no_internet_gateway_route() -> Requirement:
    """No route at all to an internet gateway (a private route table)."""
    return require(
        "routes to an internet gateway",
        [],
        lambda table: sorted(t for t in (_target(r) for r in table.get("Routes", [])) if t and t.startswith("igw-")),
        explain=lambda igws: (
            f"it routes to internet gateway {', '.join(igws)}; a private subnet's traffic "
            "must leave through the NAT gateway."
        ),
    )


@later
def ingress_exactly(*expected: net.Rule) -> Requirement:
    """Inbound rules are exactly these, nothing more (e.g. `net.tcp(80, "0.0.0.0/0")`, `net.tcp(5432, app_group)`);
    compared by meaning: CIDRs as networks, groups by id, TCP 0-65535 as every port."""
    wanted = frozenset(map(net.canonical, expected))
    return require(
        "inbound rules",
        sorted(map(str, wanted)),
        lambda group: net.rules(group.get("IpPermissions", [])),
        compare=lambda actual, _: actual == wanted,
        explain=lambda actual: _rules_issue(actual, wanted),
    )


def no_world_ingress_except(*ports: int) -> Requirement:
    """Nothing inbound from 0.0.0.0/0 or ::/0 except TCP on `ports` (e.g. SSH open to the world fails)."""
    allowed = {net.tcp(p, source) for p in ports for source in (net.WORLD_V4, net.WORLD_V6)}
    return require(
        "inbound from anywhere",
        f"only TCP {', '.join(map(str, ports))}" if ports else "nothing",
        lambda group: sorted(
            str(rule) for rule in net.rules(group.get("IpPermissions", [])) if rule.from_world and rule not in allowed
        ),
        compare=lambda open_rules, _: not open_rules,
        explain=lambda open_rules: f"it allows {'; '.join(open_rules)}: open to the whole internet.",
        hint="Remove the inbound rules that admit 0.0.0.0/0 (or ::/0) beyond what the step asks for.",
    )


def _group_name(group_id: str) -> str | None:
    """A security group's GroupName, asked once per evaluation (None when it is gone or another account's)."""

    def call(session: Any) -> str | None:
        group = refs.asked(lambda: _fetch_security_group(session, group_id))
        return group.get("GroupName") if group else None

    return refs.current().ask(f"security group name {group_id}", call, None)


def _show_rule(rule: net.Rule) -> str:
    """A rule as a learner reads it: a group source by its name where it has one (`TCP 5432 from security group
    app (sg-0abc)`)."""
    shown = str(rule)
    if not rule.source.startswith("sg:"):
        return shown
    group_id = rule.source.removeprefix("sg:")
    name = _group_name(group_id)
    return shown.removesuffix(group_id) + (f"security group {name} ({group_id})" if name else group_id)


def _rules_issue(actual: frozenset[net.Rule], wanted: frozenset[net.Rule]) -> str:
    extra, missing = sorted(map(_show_rule, actual - wanted)), sorted(map(_show_rule, wanted - actual))
    parts = []
    if extra:
        parts.append(f"it also allows {'; '.join(extra)}")
    if missing:
        parts.append(f"it does not allow {'; '.join(missing)}")
    return " and ".join(parts) + "."


@later
def nat_in_subnet(subnet: Resource | str | None) -> Requirement:
    """The NAT gateway is in the subnet (a described subnet, its id or ARN)."""
    return refs.refers(
        "subnet",
        refs.SUBNET,
        subnet,
        lambda nat: nat.get("SubnetId"),
        hint="A NAT gateway goes in a public subnet, whose route table leads to the internet gateway.",
    )


@later
def nat_uses_allocation(allocation_ids: Iterable[str]) -> Requirement:
    """The NAT gateway's public address is one of `allocation_ids` (Elastic IPs allocated in this step)."""
    ids = sorted(allocation_ids)
    return require(
        "Elastic IP",
        ids,
        lambda nat: [a.get("AllocationId") for a in nat.get("NatGatewayAddresses", [])],
        compare=lambda actual, expected: any(a in expected for a in actual),
    )


@later
def allocation_in(allocation_ids: Iterable[str]) -> Requirement:
    """An Elastic IP whose allocation is one of `allocation_ids` (e.g. the NAT gateway's)."""
    ids = sorted(allocation_ids)
    return require(
        "used by",
        ids,
        lambda address: address.get("AllocationId"),
        compare=lambda actual, expected: actual in expected,
        explain=lambda actual: f"{actual} is not the address of the step's NAT gateway.",
    )


def nat_available() -> Requirement:
    """The NAT gateway is `available` (while it is `pending`, the step answers pending, not fail)."""
    return require(
        "state",
        "available",
        lambda nat: nat.get("State"),
        hint="A new NAT gateway is 'pending' for a minute or two: wait until it is 'available'.",
        waits=True,
    )


def _fetch_vpc_endpoint(session: Any, endpoint_id: str) -> Resource | None:
    endpoints = session.client("ec2").describe_vpc_endpoints(VpcEndpointIds=[endpoint_id])["VpcEndpoints"]
    endpoint = first([e for e in endpoints if str(e.get("State", "")).lower() not in ("deleted", "deleting")])
    return {**endpoint, "Policy": endpoint.get("PolicyDocument")} if endpoint is not None else None


VPC_ENDPOINT = register(
    Kind(
        "AWS::EC2::VPCEndpoint",
        "VPC endpoint",
        _fetch_vpc_endpoint,
        settling=state_in("State", {"pending", "Pending", "PendingAcceptance", "pendingAcceptance"}),
        retry_after_s=15,
    )
)
"""`describe_vpc_endpoints`' endpoint: `VpcEndpointId`, `VpcEndpointType` (`Gateway`, `Interface`), `VpcId`,
`ServiceName` (`com.amazonaws.REGION.s3`), `State`, `RouteTableIds`, `SubnetIds`, `Groups`, `PrivateDnsEnabled`,
`PolicyDocument` (a JSON string), and that policy again as `Policy`, where the kit's policy requirements read a
resource's policy."""


def endpoint_type(value: str = "Gateway") -> Requirement:
    """The endpoint's type: `Gateway`, `Interface` or `GatewayLoadBalancer` (in any case)."""
    return require(
        "endpoint type",
        value,
        lambda e: e.get("VpcEndpointType"),
        compare=lambda actual, wanted: str(actual).lower() == wanted.lower(),
    )


def _service(name: str, region: str | None) -> str:
    """A service name as AWS writes it: `s3` in `region` is `com.amazonaws.REGION.s3`; a full name as it is."""
    name = name.strip().lower()
    return name if "." in name or region is None else f"com.amazonaws.{region}.{name}"


def endpoint_service(name: str) -> Requirement:
    """The endpoint reaches the AWS service `name`: its short name (`s3`, `dynamodb`, `ecr.api`), in the endpoint's
    own region, or the whole service name (`com.amazonaws.us-east-1.s3`)."""

    def same(actual: str | None, _: str) -> bool:
        if not actual:
            return False
        region = actual.split(".")[2] if actual.startswith("com.amazonaws.") and actual.count(".") >= 3 else None
        return actual.lower() == _service(name, region)

    return require("service", name, lambda e: e.get("ServiceName"), compare=same)


@later
def endpoint_in_route_tables(tables: Iterable[Resource | str | None]) -> Requirement:
    """A gateway endpoint routes for every one of `tables` (described route tables or their ids), among others."""
    wanted = list(tables)

    def missing(actual: list[str]) -> list[str]:
        found = actual or []
        return sorted(
            str(refs.shown(refs.ROUTE_TABLE, t)) for t in wanted if not refs.current().among(refs.ROUTE_TABLE, found, t)
        )

    return require(
        "route tables",
        sorted(str(refs.shown(refs.ROUTE_TABLE, t)) for t in wanted),
        lambda e: sorted(e.get("RouteTableIds") or []),
        compare=lambda actual, _: not missing(actual),
        explain=lambda actual: (
            f"it routes for {', '.join(actual) or 'no route table'}; it should route for "
            f"{', '.join(missing(actual))} too."
        ),
        hint="Add the route table to the gateway endpoint.",
    )


def private_dns(enabled: bool = True) -> Requirement:
    """An interface endpoint's private DNS name is on (the service's usual name resolves to the endpoint)."""
    return require("private DNS", enabled, lambda e: bool(e.get("PrivateDnsEnabled")))
