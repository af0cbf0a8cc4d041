"""Create private subnet 10.0.3.0/24 (no public IPs on launch); allocate an Elastic IP and create a NAT gateway
with it in public subnet "a"; create a route table with 0.0.0.0/0 to the NAT gateway, associated with the
private subnet, and no route to an internet gateway."""

from harness.kit import ec2
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        vpc = step.input("02_01_vpc", ec2.VPC)
        public_a = step.input("02_02_public_subnet_a", ec2.SUBNET)
        private = step.find(
            "02_04_private_subnet",
            ec2.SUBNET,
            [ec2.in_vpc(vpc), ec2.cidr("10.0.3.0/24"), ec2.maps_public_ip(False)],
        )
        nat = step.find(
            "02_04_nat",
            ec2.NAT_GATEWAY,
            [ec2.nat_in_subnet(public_a), ec2.nat_uses_allocation(step.event_ids(ec2.EIP)), ec2.nat_available()],
        )
        nat_allocations = [a["AllocationId"] for a in (nat or {}).get("NatGatewayAddresses", [])]
        step.find("02_04_eip", ec2.EIP, [ec2.allocation_in(nat_allocations)])
        step.find(
            "02_04_private_rt",
            ec2.ROUTE_TABLE,
            [
                ec2.in_vpc(vpc),
                ec2.route_to("0.0.0.0/0", nat, key="NatGatewayId"),
                ec2.associated_with([private]),
                ec2.no_internet_gateway_route(),
            ],
        )
    return step.result()
