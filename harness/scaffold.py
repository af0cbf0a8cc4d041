"""`stepeval new STEP`: a step module in the kit's shape and a scenario skeleton, written from the spec.

It never overwrites: an author's work is not replaced by a template.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from harness.errors import BadInput
from harness.lab import StepSpec

# CloudFormation type -> (kit module, Kind) for the types the kit validates.
KIT_KINDS = {
    "AWS::S3::Bucket": ("s3", "BUCKET"),
    "AWS::S3::BucketPolicy": ("s3", "BUCKET_POLICY"),
    "AWS::EC2::VPC": ("ec2", "VPC"),
    "AWS::EC2::Subnet": ("ec2", "SUBNET"),
    "AWS::EC2::InternetGateway": ("ec2", "INTERNET_GATEWAY"),
    "AWS::EC2::RouteTable": ("ec2", "ROUTE_TABLE"),
    "AWS::EC2::SecurityGroup": ("ec2", "SECURITY_GROUP"),
    "AWS::EC2::EIP": ("ec2", "EIP"),
    "AWS::EC2::NatGateway": ("ec2", "NAT_GATEWAY"),
    "AWS::ElasticLoadBalancingV2::LoadBalancer": ("elbv2", "LOAD_BALANCER"),
    "AWS::ElasticLoadBalancingV2::TargetGroup": ("elbv2", "TARGET_GROUP"),
    "AWS::ElasticLoadBalancingV2::Listener": ("elbv2", "LISTENER"),
}


def scaffold(step: StepSpec, lab_root: Path, handle_types: dict[str, str]) -> list[Path]:
    """Write the module and the scenario file for `step`; BadInput if either exists already."""
    module = step.module_path
    scenario = lab_root / "scenarios" / f"{step.stem}.py"
    existing = [str(p) for p in (module, scenario) if p.exists()]
    if existing:
        raise BadInput(f"step {step.key}: {', '.join(existing)} already exist(s); stepeval new never overwrites")
    module.parent.mkdir(parents=True, exist_ok=True)
    scenario.parent.mkdir(parents=True, exist_ok=True)
    module.write_text(module_text(step, handle_types), encoding="utf-8")
    scenario.write_text(scenario_text(step), encoding="utf-8")
    return [module, scenario]


def _kind(resource_type: str) -> str | None:
    found = KIT_KINDS.get(resource_type)
    return f"{found[0]}.{found[1]}" if found else None


def _todo(resource_type: str) -> list[str]:
    if resource_type in KIT_KINDS:
        return []
    return [f"        # TODO: the kit has no Kind for {resource_type} yet: write one (harness.kit.kinds.Kind)"]


def _instruction(step: StepSpec) -> str:
    text = step.step.description or step.step.title or f"Step {step.key}."
    return "\n".join(textwrap.wrap(" ".join(text.split()), 110))


def module_text(step: StepSpec, handle_types: dict[str, str]) -> str:
    """The module: the instruction as docstring, inputs re-verified, each output found with requirements to fill."""
    used = {KIT_KINDS[t][0] for t in [*step.output_types.values(), *step.input_types.values()] if t in KIT_KINDS}
    lines = [f'"""{_instruction(step)}"""', ""]
    if used:
        lines.append(f"from harness.kit import {', '.join(sorted(used))}")
    lines += [
        "from harness.kit.step import Step",
        "",
        "",
        "async def run(session, context, logger):",
        "    step = Step(session, context, logger)",
        "    with step:",
    ]
    for name in step.step.inputs:
        lines += _todo(handle_types[name])
        variable, kind = name.split("_", 2)[-1], _kind(handle_types[name]) or "..."
        lines.append(f'        {variable} = step.input("{name}", {kind})')
    for name, resource_type in step.output_types.items():
        lines += _todo(resource_type)
        lines += [
            f'        step.find("{name}", {_kind(resource_type) or "..."}, [',
            '            # TODO: the requirements the instruction states, e.g. ec2.cidr("10.0.0.0/16")',
            "        ])",
        ]
    lines += ["    return step.result()", ""]
    return "\n".join(lines)


def scenario_text(step: StepSpec) -> str:
    """The scenario file: a solve and one mistake to fill in."""
    return textwrap.dedent(f'''\
        """Scenarios for step {step.key}: how a learner solves it, and the common mistakes."""

        from harness.scenarios import mistake, solve


        @solve
        def solve_step(aws, handles):
            """{_instruction(step).splitlines()[0]}"""
            raise NotImplementedError("make the calls a learner would, e.g. aws.client('ec2').create_vpc(...)")


        @mistake(issue=r"(?i)TODO: the issue this mistake must produce")
        def common_mistake(aws, handles):
            raise NotImplementedError("the solve with one thing a learner often gets wrong")
        ''')
