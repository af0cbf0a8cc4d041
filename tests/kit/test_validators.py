"""The ec2, elbv2 and s3 validators against moto in-process: state built with plain boto3 calls, each
requirement read off what the Kind's fetch describes, misses worded for the learner."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from harness.core.contract import check_result
from harness.core.lab import load_lab
from harness.kit import ec2, elbv2, net, s3
from harness.kit.aws import fetch_or_none
from harness.kit.kinds import Kind, LazyResource
from harness.kit.require import Outcome, Requirement
from harness.kit.step import Step

pytestmark = pytest.mark.moto

REPO_ROOT = Path(__file__).resolve().parents[2]
REGION = "us-east-1"
_serial = itertools.count(1)


def unique(prefix: str) -> str:
    return f"{prefix}-{next(_serial)}"


@pytest.fixture(scope="module")
def mocked() -> Iterator[None]:
    """One moto account for the module (resetting it per test costs more than the tests): every test builds
    its own VPC, bucket and load balancer, uniquely named, so tests do not see each other's resources."""
    with mock_aws():
        yield


@pytest.fixture(scope="module")
def sessions(mocked) -> dict[str, boto3.Session]:
    """One plain boto3 Session per region (a new session's first client costs ~0.4 s)."""
    return {}


@pytest.fixture
def region_session(sessions: dict[str, boto3.Session]):
    def for_region(region: str) -> boto3.Session:
        if region not in sessions:
            sessions[region] = boto3.Session(region_name=region)
        return sessions[region]

    return for_region


@pytest.fixture
def session(region_session) -> boto3.Session:
    return region_session(REGION)


def fetch(kind: Kind, session: boto3.Session, resource_id: str) -> Any:
    resource = fetch_or_none(lambda: kind.fetch(session, resource_id))
    assert resource is not None, f"{kind.describe(resource_id)} should exist"
    return resource


def evaluate(requirement: Requirement, resource: Any) -> Outcome:
    return requirement.evaluate(resource)


def issue(requirement: Requirement, kind: Kind, resource_id: str, resource: Any) -> str:
    outcome = requirement.evaluate(resource)
    assert outcome.ok is False, f"{requirement.check} should have failed on {resource_id}"
    return outcome.issue(kind.describe(resource_id))


class Network:
    """A VPC with two subnets (zones a and b), made the way a learner would."""

    def __init__(self, session: boto3.Session) -> None:
        self.region = session.region_name
        self.client = session.client("ec2")
        self.vpc_id = self.client.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
        self.subnet_a = self.subnet("10.0.1.0/24", "a")
        self.subnet_b = self.subnet("10.0.2.0/24", "b")

    def subnet(self, block: str, letter: str) -> str:
        subnet = self.client.create_subnet(VpcId=self.vpc_id, CidrBlock=block, AvailabilityZone=self.region + letter)
        return subnet["Subnet"]["SubnetId"]

    def igw(self, *, attach: bool = True) -> str:
        igw_id = self.client.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
        if attach:
            self.client.attach_internet_gateway(InternetGatewayId=igw_id, VpcId=self.vpc_id)
        return igw_id

    def route_table(self, *, routes: dict[str, str] | None = None, subnets: tuple[str, ...] = ()) -> str:
        table_id = self.client.create_route_table(VpcId=self.vpc_id)["RouteTable"]["RouteTableId"]
        for destination, gateway in (routes or {}).items():
            self.client.create_route(RouteTableId=table_id, DestinationCidrBlock=destination, GatewayId=gateway)
        for subnet_id in subnets:
            self.client.associate_route_table(RouteTableId=table_id, SubnetId=subnet_id)
        return table_id

    def security_group(self, name: str, *permissions: dict[str, Any]) -> str:
        group_id = self.client.create_security_group(GroupName=name, Description=name, VpcId=self.vpc_id)["GroupId"]
        if permissions:
            self.client.authorize_security_group_ingress(GroupId=group_id, IpPermissions=list(permissions))
        return group_id


@pytest.fixture
def network(session: boto3.Session) -> Network:
    return Network(session)


def world_tcp(port: int) -> dict[str, Any]:
    return {"IpProtocol": "tcp", "FromPort": port, "ToPort": port, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}


# --- EC2: VPC -----------------------------------------------------------------------------------------------------


def test_vpc_dns_attributes_are_read_lazily(session: boto3.Session, network: Network) -> None:
    calls: list[str] = []
    session.events.register(
        "provide-client-params.ec2.DescribeVpcAttribute", lambda params, **_: calls.append(params["Attribute"])
    )
    vpc = fetch(ec2.VPC, session, network.vpc_id)
    assert isinstance(vpc, LazyResource)
    assert vpc["VpcId"] == network.vpc_id and vpc["CidrBlock"] == "10.0.0.0/16"
    assert calls == []
    assert vpc["EnableDnsHostnames"] is False  # moto's default for a new VPC, as AWS's
    assert vpc.get("EnableDnsSupport") is True
    assert vpc["EnableDnsHostnames"] is False and vpc.get("EnableDnsSupport") is True
    assert calls == ["enableDnsHostnames", "enableDnsSupport"]  # one call each, then kept
    assert vpc.get("NoSuchAttribute") is None
    assert vpc.get("NoSuchAttribute", "default") == "default"
    with pytest.raises(KeyError):
        vpc["NoSuchAttribute"]


def test_vpc_requirements(session: boto3.Session, network: Network) -> None:
    vpc = fetch(ec2.VPC, session, network.vpc_id)
    assert evaluate(ec2.cidr("10.0.0.0/16"), vpc).ok
    assert evaluate(ec2.dns_support(), vpc).ok
    assert issue(ec2.dns_hostnames(), ec2.VPC, network.vpc_id, vpc) == (
        f"VPC {network.vpc_id}: DNS hostnames should be enabled, but is disabled."
    )
    assert ec2.dns_hostnames().hint == "Edit the VPC's settings and enable DNS hostnames."
    network.client.modify_vpc_attribute(VpcId=network.vpc_id, EnableDnsHostnames={"Value": True})
    assert evaluate(ec2.dns_hostnames(), fetch(ec2.VPC, session, network.vpc_id)).ok


def test_a_missing_vpc_is_none(session: boto3.Session) -> None:
    assert fetch_or_none(lambda: ec2.VPC.fetch(session, "vpc-0123456789abcdef0")) is None


# --- EC2: subnet --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("region", ["us-east-1", "eu-west-1"])
def test_subnet_zone_is_region_agnostic(region_session, region: str) -> None:
    session = region_session(region)
    network = Network(session)
    subnet_a = fetch(ec2.SUBNET, session, network.subnet_a)
    subnet_b = fetch(ec2.SUBNET, session, network.subnet_b)
    assert evaluate(ec2.zone("a"), subnet_a).ok
    assert evaluate(ec2.zone("b"), subnet_b).ok
    assert issue(ec2.zone("a"), ec2.SUBNET, network.subnet_b, subnet_b) == (
        f"Subnet {network.subnet_b}: availability zone should be the zone ending in 'a', but is {region}b."
    )


def test_subnet_requirements(session: boto3.Session, network: Network) -> None:
    subnet = fetch(ec2.SUBNET, session, network.subnet_a)
    assert evaluate(ec2.in_vpc(network.vpc_id), subnet).ok
    assert evaluate(ec2.in_vpc(fetch(ec2.VPC, session, network.vpc_id)), subnet).ok  # a described VPC works too
    assert not evaluate(ec2.in_vpc("vpc-other"), subnet).ok
    assert evaluate(ec2.cidr("10.0.1.0/24"), subnet).ok
    assert evaluate(ec2.cidr_within("10.0.0.0/16"), subnet).ok
    assert not evaluate(ec2.cidr_within("10.1.0.0/16"), subnet).ok
    assert not evaluate(ec2.cidr_within("10.0.0.0/16"), {"SubnetId": "subnet-1"}).ok
    assert issue(ec2.maps_public_ip(True), ec2.SUBNET, network.subnet_a, subnet) == (
        f"Subnet {network.subnet_a}: auto-assign public IPv4 (MapPublicIpOnLaunch) should be enabled, but is disabled."
    )
    network.client.modify_subnet_attribute(SubnetId=network.subnet_a, MapPublicIpOnLaunch={"Value": True})
    assert evaluate(ec2.maps_public_ip(True), fetch(ec2.SUBNET, session, network.subnet_a)).ok


def test_two_subnets_found_by_configuration_in_eu_west_1(region_session) -> None:
    """The sample lab's step 02.02 spec, a Step on a plain boto3 session, subnets listed b before a."""
    session = region_session("eu-west-1")
    network = Network(session)
    for subnet_id in (network.subnet_a, network.subnet_b):
        network.client.modify_subnet_attribute(SubnetId=subnet_id, MapPublicIpOnLaunch={"Value": True})
    spec = load_lab(REPO_ROOT).steps["02.02"]
    context = {
        "resolved": [{"name": "02_01_vpc", "type": "AWS::EC2::VPC", "id": network.vpc_id}],
        "events": [{"type": "AWS::EC2::Subnet", "id": s} for s in (network.subnet_b, network.subnet_a)],
        "spec": spec.slice(),
    }
    step = Step(session, context)
    with step:
        vpc = step.input("02_01_vpc", ec2.VPC)
        step.find_all(
            ec2.SUBNET,
            {
                "02_02_public_subnet_a": [ec2.in_vpc(vpc), ec2.cidr("10.0.1.0/24"), ec2.zone("a")],
                "02_02_public_subnet_b": [ec2.in_vpc(vpc), ec2.cidr("10.0.2.0/24"), ec2.zone("b")],
            },
        )
    answer = check_result(step.result(), spec, 1.0)
    assert answer.status == "pass", answer
    assert {h.name: h.id for h in answer.resolved} == {
        "02_02_public_subnet_a": network.subnet_a,
        "02_02_public_subnet_b": network.subnet_b,
    }


# --- EC2: internet gateway and route tables --------------------------------------------------------------------


def test_attached_to(session: boto3.Session, network: Network) -> None:
    attached = network.igw()
    detached = network.igw(attach=False)
    other_vpc = network.client.create_vpc(CidrBlock="10.9.0.0/16")["Vpc"]["VpcId"]
    igw = fetch(ec2.INTERNET_GATEWAY, session, attached)
    assert evaluate(ec2.attached_to(network.vpc_id), igw).ok
    assert evaluate(ec2.attached_to(fetch(ec2.VPC, session, network.vpc_id)), igw).ok
    assert issue(ec2.attached_to(other_vpc), ec2.INTERNET_GATEWAY, attached, igw) == (
        f"Internet gateway {attached}: it is attached to {network.vpc_id}, not to {other_vpc}."
    )
    lonely = fetch(ec2.INTERNET_GATEWAY, session, detached)
    assert issue(ec2.attached_to(network.vpc_id), ec2.INTERNET_GATEWAY, detached, lonely) == (
        f"Internet gateway {detached}: it is attached to no VPC, not to {network.vpc_id}."
    )
    assert ec2.attached_to(network.vpc_id).hint == "Attach the internet gateway to the lab's VPC."


def test_route_to(session: boto3.Session, network: Network) -> None:
    igw_id = network.igw()
    other_igw = network.igw(attach=False)
    routed = fetch(ec2.ROUTE_TABLE, session, network.route_table(routes={"0.0.0.0/0": igw_id}))
    assert evaluate(ec2.route_to("0.0.0.0/0", igw_id, key="InternetGatewayId"), routed).ok
    igw = fetch(ec2.INTERNET_GATEWAY, session, igw_id)
    assert evaluate(ec2.route_to("0.0.0.0/0", igw, key="InternetGatewayId"), routed).ok  # a described gateway
    wrong = ec2.route_to("0.0.0.0/0", other_igw, key="InternetGatewayId")
    assert issue(wrong, ec2.ROUTE_TABLE, "rtb-1", routed) == (
        f"Route table rtb-1: its route 0.0.0.0/0 goes to {igw_id}, not to {other_igw}."
    )
    bare = fetch(ec2.ROUTE_TABLE, session, network.route_table())
    assert issue(ec2.route_to("0.0.0.0/0", igw_id, key="InternetGatewayId"), ec2.ROUTE_TABLE, "rtb-2", bare) == (
        f"Route table rtb-2: it has no active route 0.0.0.0/0 to {igw_id}."
    )


def test_a_blackhole_route_is_no_route() -> None:
    table = {"Routes": [{"DestinationCidrBlock": "0.0.0.0/0", "NatGatewayId": "nat-1", "State": "blackhole"}]}
    outcome = evaluate(ec2.route_to("0.0.0.0/0", "nat-1", key="NatGatewayId"), table)
    assert (outcome.ok, outcome.actual) == (False, None)
    assert outcome.issue("route table rtb-1") == "Route table rtb-1: it has no active route 0.0.0.0/0 to nat-1."


def test_a_route_to_a_missing_target_never_passes() -> None:
    table = {"Routes": [{"DestinationCidrBlock": "10.0.0.0/16", "GatewayId": "local", "State": "active"}]}
    assert not evaluate(ec2.route_to("0.0.0.0/0", None, key="NatGatewayId"), table).ok


def test_associated_with(session: boto3.Session, network: Network) -> None:
    both = [network.subnet_a, fetch(ec2.SUBNET, session, network.subnet_b)]  # ids or described subnets
    full = fetch(ec2.ROUTE_TABLE, session, network.route_table(subnets=(network.subnet_b, network.subnet_a)))
    assert evaluate(ec2.associated_with(both), full).ok
    subnet_c = network.subnet("10.0.3.0/24", "c")  # a subnet has one explicit association: a fresh one here
    one = fetch(ec2.ROUTE_TABLE, session, network.route_table(subnets=(subnet_c,)))
    assert evaluate(ec2.associated_with([subnet_c]), one).ok
    assert issue(ec2.associated_with([subnet_c, *both]), ec2.ROUTE_TABLE, "rtb-1", one) == (
        f"Route table rtb-1: it is associated with {subnet_c}; "
        f"it should be associated with {', '.join(sorted([network.subnet_a, network.subnet_b]))} too."
    )
    none = fetch(ec2.ROUTE_TABLE, session, network.route_table())
    assert issue(ec2.associated_with([subnet_c]), ec2.ROUTE_TABLE, "rtb-2", none) == (
        f"Route table rtb-2: it is associated with no subnet; it should be associated with {subnet_c} too."
    )


def test_the_main_route_table_is_associated_with_every_subnet_no_other_table_names(
    session: boto3.Session, network: Network
) -> None:
    main_id = network.client.describe_route_tables(
        Filters=[{"Name": "vpc-id", "Values": [network.vpc_id]}, {"Name": "association.main", "Values": ["true"]}]
    )["RouteTables"][0]["RouteTableId"]
    main = fetch(ec2.ROUTE_TABLE, session, main_id)
    assert main["ImplicitSubnets"] == sorted([network.subnet_a, network.subnet_b])
    assert evaluate(ec2.associated_with([network.subnet_a, network.subnet_b]), main).ok
    assert not evaluate(ec2.associated_with([network.subnet_a], explicit=True), main).ok
    assert evaluate(ec2.uses_route_table(main_id), fetch(ec2.SUBNET, session, network.subnet_a)).ok

    own = network.route_table(subnets=(network.subnet_b,))  # subnet b now follows its own table
    main = fetch(ec2.ROUTE_TABLE, session, main_id)
    assert evaluate(ec2.associated_with([network.subnet_a]), main).ok
    assert issue(ec2.associated_with([network.subnet_a, network.subnet_b]), ec2.ROUTE_TABLE, main_id, main) == (
        f"Route table {main_id}: it is associated with {network.subnet_a}; "
        f"it should be associated with {network.subnet_b} too."
    )
    subnet_b = fetch(ec2.SUBNET, session, network.subnet_b)
    assert evaluate(ec2.uses_route_table(own), subnet_b).ok
    assert issue(ec2.uses_route_table(main_id), ec2.SUBNET, network.subnet_b, subnet_b) == (
        f"Subnet {network.subnet_b}: route table should be {main_id}, but is {own}."
    )
    assert fetch(ec2.ROUTE_TABLE, session, own)["ImplicitSubnets"] == []  # only a main table serves implicitly


def test_a_disassociated_subnet_does_not_count() -> None:
    table = {"Associations": [{"SubnetId": "subnet-1", "AssociationState": {"State": "disassociated"}}]}
    assert not evaluate(ec2.associated_with(["subnet-1"]), table).ok


def test_no_internet_gateway_route(session: boto3.Session, network: Network) -> None:
    igw_id = network.igw()
    private = fetch(ec2.ROUTE_TABLE, session, network.route_table())
    assert evaluate(ec2.no_internet_gateway_route(), private).ok  # the "local" route is not a gateway
    public = fetch(ec2.ROUTE_TABLE, session, network.route_table(routes={"0.0.0.0/0": igw_id}))
    assert issue(ec2.no_internet_gateway_route(), ec2.ROUTE_TABLE, "rtb-1", public) == (
        f"Route table rtb-1: it routes to internet gateway {igw_id}; a private subnet's traffic must leave "
        "through the NAT gateway."
    )


# --- EC2: security groups ------------------------------------------------------------------------------------------


def test_ingress_exactly(session: boto3.Session, network: Network) -> None:
    web_only = ec2.ingress_exactly(net.tcp(80, net.WORLD_V4))
    exact = fetch(ec2.SECURITY_GROUP, session, network.security_group("exact", world_tcp(80)))
    assert evaluate(web_only, exact).ok
    with_ssh = fetch(ec2.SECURITY_GROUP, session, network.security_group("ssh", world_tcp(80), world_tcp(22)))
    assert issue(web_only, ec2.SECURITY_GROUP, "sg-1", with_ssh) == (
        "Security group sg-1: it also allows TCP 22 from 0.0.0.0/0."
    )
    ssh_only = fetch(ec2.SECURITY_GROUP, session, network.security_group("ssh-only", world_tcp(22)))
    assert issue(web_only, ec2.SECURITY_GROUP, "sg-2", ssh_only) == (
        "Security group sg-2: it also allows TCP 22 from 0.0.0.0/0 and it does not allow TCP 80 from 0.0.0.0/0."
    )
    empty = fetch(ec2.SECURITY_GROUP, session, network.security_group("empty"))
    assert issue(web_only, ec2.SECURITY_GROUP, "sg-3", empty) == (
        "Security group sg-3: it does not allow TCP 80 from 0.0.0.0/0."
    )


def test_ingress_exactly_from_another_group(session: boto3.Session, network: Network) -> None:
    alb_sg = network.security_group("alb", world_tcp(80))
    from_alb = {"IpProtocol": "tcp", "FromPort": 80, "ToPort": 80, "UserIdGroupPairs": [{"GroupId": alb_sg}]}
    app = fetch(ec2.SECURITY_GROUP, session, network.security_group("app", from_alb))
    assert evaluate(ec2.ingress_exactly(net.tcp(80, f"sg:{alb_sg}")), app).ok
    assert issue(ec2.ingress_exactly(net.tcp(80, net.WORLD_V4)), ec2.SECURITY_GROUP, "sg-app", app) == (
        f"Security group sg-app: it also allows TCP 80 from {alb_sg} and it does not allow TCP 80 from 0.0.0.0/0."
    )


# --- EC2: NAT gateway and Elastic IP -------------------------------------------------------------------------------


def test_nat_gateway_requirements(session: boto3.Session, network: Network) -> None:
    allocation = network.client.allocate_address(Domain="vpc")["AllocationId"]
    nat_id = network.client.create_nat_gateway(SubnetId=network.subnet_a, AllocationId=allocation)["NatGateway"][
        "NatGatewayId"
    ]
    nat = fetch(ec2.NAT_GATEWAY, session, nat_id)
    assert evaluate(ec2.nat_available(), nat).ok  # moto: available at once
    assert evaluate(ec2.nat_in_subnet(network.subnet_a), nat).ok
    assert not evaluate(ec2.nat_in_subnet(network.subnet_b), nat).ok
    assert evaluate(ec2.nat_uses_allocation([allocation, "eipalloc-other"]), nat).ok
    assert not evaluate(ec2.nat_uses_allocation(["eipalloc-other"]), nat).ok
    address = fetch(ec2.EIP, session, allocation)
    assert evaluate(ec2.allocation_in([allocation]), address).ok
    assert issue(ec2.allocation_in(["eipalloc-other"]), ec2.EIP, allocation, address) == (
        f"Elastic IP {allocation}: {allocation} is not the address of the step's NAT gateway."
    )


def test_a_pending_nat_gateway_is_not_available() -> None:
    pending = {"NatGatewayId": "nat-1", "State": "pending", "SubnetId": "subnet-1"}  # real AWS's first state
    requirement = ec2.nat_available()
    assert issue(requirement, ec2.NAT_GATEWAY, "nat-1", pending) == (
        "NAT gateway nat-1: state should be available, but is pending."
    )
    assert "wait until it is 'available'" in (requirement.hint or "")


def test_a_deleted_nat_gateway_is_gone(session: boto3.Session, network: Network) -> None:
    allocation = network.client.allocate_address(Domain="vpc")["AllocationId"]
    nat_id = network.client.create_nat_gateway(SubnetId=network.subnet_a, AllocationId=allocation)["NatGateway"][
        "NatGatewayId"
    ]
    network.client.delete_nat_gateway(NatGatewayId=nat_id)
    assert fetch_or_none(lambda: ec2.NAT_GATEWAY.fetch(session, nat_id)) is None


# --- ELBv2 ---------------------------------------------------------------------------------------------------------


class Balancer:
    def __init__(self, session: boto3.Session, network: Network, *, scheme: str = "internet-facing") -> None:
        self.client = session.client("elbv2")
        self.network = network
        lb = self.client.create_load_balancer(
            Name=unique(f"lb-{scheme}"), Subnets=[network.subnet_a, network.subnet_b], Scheme=scheme, Type="application"
        )
        self.arn = lb["LoadBalancers"][0]["LoadBalancerArn"]

    def target_group(self, name: str) -> str:
        group = self.client.create_target_group(Name=unique(name), Protocol="HTTP", Port=80, VpcId=self.network.vpc_id)
        return group["TargetGroups"][0]["TargetGroupArn"]

    def listener(self, port: int, action: dict[str, Any]) -> str:
        listener = self.client.create_listener(
            LoadBalancerArn=self.arn, Protocol="HTTP", Port=port, DefaultActions=[action]
        )
        return listener["Listeners"][0]["ListenerArn"]


def test_load_balancer_subnets_exactly(session: boto3.Session, network: Network) -> None:
    balancer = Balancer(session, network)
    lb = fetch(elbv2.LOAD_BALANCER, session, balancer.arn)
    subnet_b = fetch(ec2.SUBNET, session, network.subnet_b)
    assert evaluate(elbv2.in_subnets_exactly([subnet_b, network.subnet_a]), lb).ok  # any order, ids or described
    both = ", ".join(sorted([network.subnet_a, network.subnet_b]))
    assert issue(elbv2.in_subnets_exactly([network.subnet_a]), elbv2.LOAD_BALANCER, "arn-lb", lb) == (
        f"Load balancer arn-lb: subnets should be {network.subnet_a}, but is {both}."
    )
    subnet_c = network.subnet("10.0.3.0/24", "c")
    assert not evaluate(elbv2.in_subnets_exactly([network.subnet_a, network.subnet_b, subnet_c]), lb).ok
    assert evaluate(elbv2.lb_type("application"), lb).ok


def test_an_internal_load_balancer_is_not_internet_facing(session: boto3.Session, network: Network) -> None:
    balancer = Balancer(session, network, scheme="internal")
    lb = fetch(elbv2.LOAD_BALANCER, session, balancer.arn)
    assert evaluate(elbv2.scheme("internal"), lb).ok
    requirement = elbv2.scheme()
    assert issue(requirement, elbv2.LOAD_BALANCER, "arn-lb", lb) == (
        "Load balancer arn-lb: scheme should be internet-facing, but is internal."
    )
    assert requirement.hint == "The scheme is chosen at creation: internet-facing or internal."


def test_with_security_group(session: boto3.Session, network: Network) -> None:
    group = network.security_group("alb", world_tcp(80))
    lb_arn = session.client("elbv2").create_load_balancer(
        Name=unique("lb-sg"), Subnets=[network.subnet_a, network.subnet_b], SecurityGroups=[group]
    )["LoadBalancers"][0]["LoadBalancerArn"]
    lb = fetch(elbv2.LOAD_BALANCER, session, lb_arn)
    assert evaluate(elbv2.with_security_group(group), lb).ok
    assert evaluate(elbv2.with_security_group({"GroupId": group}), lb).ok
    assert not evaluate(elbv2.with_security_group("sg-other"), lb).ok


def test_forwards_to(session: boto3.Session, network: Network) -> None:
    balancer = Balancer(session, network)
    group_arn, other_arn = balancer.target_group("web"), balancer.target_group("other")
    plain = balancer.listener(80, {"Type": "forward", "TargetGroupArn": group_arn})
    weighted = balancer.listener(
        81, {"Type": "forward", "ForwardConfig": {"TargetGroups": [{"TargetGroupArn": group_arn, "Weight": 1}]}}
    )
    redirect = balancer.listener(
        82, {"Type": "redirect", "RedirectConfig": {"Protocol": "HTTPS", "Port": "443", "StatusCode": "HTTP_301"}}
    )
    elsewhere = balancer.listener(83, {"Type": "forward", "TargetGroupArn": other_arn})
    requirement = elbv2.forwards_to(group_arn)
    for arn in (plain, weighted):
        listener = fetch(elbv2.LISTENER, session, arn)
        assert evaluate(requirement, listener).ok
        assert evaluate(elbv2.forwards_to(fetch(elbv2.TARGET_GROUP, session, group_arn)), listener).ok
        assert evaluate(elbv2.on_load_balancer(balancer.arn), listener).ok
        assert evaluate(elbv2.protocol("HTTP"), listener).ok
    assert evaluate(elbv2.port(80), fetch(elbv2.LISTENER, session, plain)).ok
    assert issue(requirement, elbv2.LISTENER, "arn-l", fetch(elbv2.LISTENER, session, redirect)) == (
        "Listener arn-l: its default action does not forward to a target group."
    )
    assert issue(requirement, elbv2.LISTENER, "arn-l", fetch(elbv2.LISTENER, session, elsewhere)) == (
        f"Listener arn-l: its default action forwards to {other_arn}, not to {group_arn}."
    )


def test_forwarding_to_two_groups_is_not_forwarding_all_traffic() -> None:
    listener = {
        "DefaultActions": [
            {
                "Type": "forward",
                "ForwardConfig": {"TargetGroups": [{"TargetGroupArn": "tg-1"}, {"TargetGroupArn": "tg-2"}]},
            }
        ]
    }
    assert not evaluate(elbv2.forwards_to("tg-1"), listener).ok


def test_missing_elbv2_resources_are_none(session: boto3.Session) -> None:
    arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/app/gone/1234567890abcdef"
    assert fetch_or_none(lambda: elbv2.LOAD_BALANCER.fetch(session, arn)) is None


# --- S3 ------------------------------------------------------------------------------------------------------------


@pytest.fixture
def bucket(session: boto3.Session) -> str:
    name = unique("site-bucket")
    session.client("s3").create_bucket(Bucket=name)
    return name


@pytest.fixture
def bucket_client(session: boto3.Session) -> Any:
    return session.client("s3")


def public_read(bucket: str) -> str:
    statement = {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{bucket}/*"}
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


@pytest.mark.parametrize(("status", "ok"), [(None, False), ("Enabled", True), ("Suspended", False)])
def test_versioning_enabled(session: boto3.Session, bucket_client, bucket: str, status: str | None, ok: bool) -> None:
    if status:
        bucket_client.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": status})
    outcome = evaluate(s3.versioning_enabled(), fetch(s3.BUCKET, session, bucket))
    assert (outcome.ok, outcome.actual) == (ok, status or "Disabled")
    if not ok:
        assert outcome.issue(s3.BUCKET.describe(bucket)) == (
            f"S3 bucket {bucket}: versioning should be Enabled, but is {status or 'Disabled'}."
        )


def test_a_missing_bucket_or_policy_is_none(session: boto3.Session, bucket_client, bucket: str) -> None:
    assert fetch_or_none(lambda: s3.BUCKET.fetch(session, "never-created")) is None
    assert fetch_or_none(lambda: s3.BUCKET_POLICY.fetch(session, bucket)) is None  # a bucket with no policy


def test_a_public_read_policy_is_granted(session: boto3.Session, bucket_client, bucket: str) -> None:
    bucket_client.put_bucket_policy(Bucket=bucket, Policy=public_read(bucket))
    policy = fetch(s3.BUCKET_POLICY, session, bucket)
    assert evaluate(s3.grants_public_read(bucket), policy).ok
    assert evaluate(s3.public_policies_allowed(), policy).ok  # no public access block at all


def test_a_policy_that_is_not_json_is_not_a_grant(session: boto3.Session, bucket_client, bucket: str) -> None:
    bucket_client.put_bucket_policy(Bucket=bucket, Policy="this is not json")  # moto accepts it; AWS would not
    policy = fetch(s3.BUCKET_POLICY, session, bucket)
    requirement = s3.grants_public_read(bucket)
    text = issue(requirement, s3.BUCKET_POLICY, bucket, policy)
    assert text.startswith(f"Bucket policy on {bucket}: the policy is not a valid policy document")
    assert requirement.hint == (
        f"Allow s3:GetObject to Principal * on arn:aws:s3:::{bucket}/*, with no Condition and no Deny."
    )


@pytest.mark.parametrize(
    ("block", "wording"),
    [
        ({"BlockPublicPolicy": True, "RestrictPublicBuckets": False}, "blocks public policies"),
        ({"BlockPublicPolicy": False, "RestrictPublicBuckets": True}, "restricts public buckets"),
        ({"BlockPublicPolicy": True, "RestrictPublicBuckets": True}, "blocks public policies"),
    ],
    ids=["block-public-policy", "restrict-public-buckets", "both"],
)
def test_public_policies_blocked(
    session: boto3.Session, bucket_client, bucket: str, block: dict[str, bool], wording: str
) -> None:
    bucket_client.put_bucket_policy(Bucket=bucket, Policy=public_read(bucket))
    bucket_client.put_public_access_block(
        Bucket=bucket,
        PublicAccessBlockConfiguration={"BlockPublicAcls": False, "IgnorePublicAcls": False, **block},
    )
    policy = fetch(s3.BUCKET_POLICY, session, bucket)
    assert issue(s3.public_policies_allowed(), s3.BUCKET_POLICY, bucket, policy) == (
        f"Bucket policy on {bucket}: its public access block {wording}, so the public policy has no effect."
    )


def test_public_access_block_that_only_blocks_acls_allows_policies(
    session: boto3.Session, bucket_client, bucket: str
) -> None:
    bucket_client.put_public_access_block(
        Bucket=bucket,
        PublicAccessBlockConfiguration={
            "BlockPublicAcls": True,
            "IgnorePublicAcls": True,
            "BlockPublicPolicy": False,
            "RestrictPublicBuckets": False,
        },
    )
    assert evaluate(s3.public_policies_allowed(), fetch(s3.BUCKET, session, bucket)).ok


def test_no_world_ingress_except_names_what_is_open() -> None:
    from harness.kit import ec2

    group = {
        "IpPermissions": [
            {"IpProtocol": "tcp", "FromPort": 80, "ToPort": 80, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]},
            {"IpProtocol": "tcp", "FromPort": 22, "ToPort": 22, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]},
            {"IpProtocol": "-1", "Ipv6Ranges": [{"CidrIpv6": "::/0"}]},
            {"IpProtocol": "tcp", "FromPort": 5432, "ToPort": 5432, "IpRanges": [{"CidrIp": "10.0.0.0/16"}]},
        ]
    }
    outcome = ec2.no_world_ingress_except(80).evaluate(group)
    assert not outcome.ok
    assert outcome.actual == ["TCP 22 from 0.0.0.0/0", "all traffic from ::/0"]
    assert outcome.issue("security group sg-1") == (
        "Security group sg-1: it allows TCP 22 from 0.0.0.0/0; all traffic from ::/0: open to the whole internet."
    )
    only_web = {"IpPermissions": group["IpPermissions"][:1] + group["IpPermissions"][3:]}
    assert ec2.no_world_ingress_except(80).evaluate(only_web).ok


def test_forwarding_after_authentication_is_not_forwarding_all_traffic() -> None:
    listener = {
        "DefaultActions": [
            {"Type": "authenticate-oidc", "Order": 1},
            {"Type": "forward", "TargetGroupArn": "tg-1", "Order": 2},
        ]
    }
    outcome = evaluate(elbv2.forwards_to("tg-1"), listener)
    assert not outcome.ok
    assert outcome.issue("listener arn-l") == (
        "Listener arn-l: its default actions also authenticate-oidc: it should only forward to tg-1."
    )
