"""ECR, ECS, CloudFront, Route 53 and CloudTrail kinds on moto."""

from __future__ import annotations

from harness.kit import cloudfront, cloudtrail, ecr, ecs, route53
from harness.kit.kinds import short_name
from tests.kit.conftest import described, miss, passes, unique

AWSLOGS = {"awslogs-group": "/ecs/web", "awslogs-region": "us-east-1", "awslogs-stream-prefix": "web"}


def test_ecr_repository(aws_session) -> None:
    name = unique("app")
    aws_session.client("ecr").create_repository(
        repositoryName=name, imageScanningConfiguration={"scanOnPush": True}, imageTagMutability="IMMUTABLE"
    )
    repository = described(ecr.REPOSITORY, aws_session, name)
    assert passes(ecr.scan_on_push(), repository)
    assert passes(ecr.immutable_tags(), repository)
    aws_session.client("ecr").put_image_scanning_configuration(
        repositoryName=name, imageScanningConfiguration={"scanOnPush": False}
    )
    unscanned = described(ecr.REPOSITORY, aws_session, name)
    assert miss(ecr.scan_on_push(), ecr.REPOSITORY, name, unscanned) == (
        f"ECR repository {name}: scan on push should be enabled, but is disabled."
    )
    assert miss(ecr.has_lifecycle_policy(), ecr.REPOSITORY, name, repository) == (
        f"ECR repository {name}: lifecycle policy should be set, but is none."
    )


def test_ecs_cluster_service_and_task_definition(aws_session) -> None:
    client = aws_session.client("ecs")
    cluster = unique("cluster")
    client.create_cluster(clusterName=cluster, settings=[{"name": "containerInsights", "value": "enabled"}])
    family = unique("web")
    task_arn = client.register_task_definition(
        family=family,
        requiresCompatibilities=["FARGATE"],
        networkMode="awsvpc",
        cpu="256",
        memory="512",
        containerDefinitions=[
            {
                "name": "web",
                "image": "nginx:1.27",
                "logConfiguration": {"logDriver": "awslogs", "options": AWSLOGS},
            }
        ],
    )["taskDefinition"]["taskDefinitionArn"]
    service_arn = client.create_service(
        cluster=cluster, serviceName=unique("svc"), taskDefinition=family, desiredCount=2, launchType="FARGATE"
    )["service"]["serviceArn"]
    assert passes(ecs.container_insights(), described(ecs.CLUSTER, aws_session, cluster))
    task = described(ecs.TASK_DEFINITION, aws_session, task_arn)
    for requirement in (
        ecs.compatible_with("FARGATE"),
        ecs.task_size("256", "512"),
        ecs.network_mode(),
        ecs.container_image("web", "nginx:1.27"),
        ecs.logs_to("/ecs/web"),
    ):
        assert passes(requirement, task), requirement.check
    service = described(ecs.SERVICE, aws_session, service_arn)
    for requirement in (ecs.in_cluster(cluster), ecs.desired_count(2), ecs.launch_type(), ecs.runs(family)):
        assert passes(requirement, service), requirement.check
    assert miss(ecs.desired_count(3), ecs.SERVICE, service_arn, service) == (
        f"ECS service {short_name(service_arn)}: desired count should be 3, but is 2."
    )


def distribution_config(origin: str, **settings) -> dict:
    return {
        "CallerReference": unique("ref"),
        "Comment": "lab",
        "Enabled": True,
        "DefaultRootObject": "index.html",
        "Origins": {
            "Quantity": 1,
            "Items": [{"Id": "s3", "DomainName": origin, "S3OriginConfig": {"OriginAccessIdentity": ""}}],
        },
        "DefaultCacheBehavior": {
            "TargetOriginId": "s3",
            "ViewerProtocolPolicy": "allow-all",
            "CachePolicyId": "658327ea-f89d-4fab-a63d-7e88639e58f6",
        },
        **settings,
    }


def test_logs_reach_the_group_only_through_a_route_the_task_starts_with(aws_session) -> None:
    """awslogs needs awslogs-region, and on a task that can run on Fargate awslogs-stream-prefix too."""

    def task(compatibility: str, *lacking: str) -> dict:
        options = {k: v for k, v in AWSLOGS.items() if k not in lacking}
        arn = aws_session.client("ecs").register_task_definition(
            family=unique("web"), requiresCompatibilities=[compatibility], networkMode="bridge", memory="512",
            containerDefinitions=[{"name": "web", "image": "nginx:1.27",
                                   "logConfiguration": {"logDriver": "awslogs", "options": options}}],
        )["taskDefinition"]["taskDefinitionArn"]  # fmt: skip
        return described(ecs.TASK_DEFINITION, aws_session, arn)

    assert passes(ecs.logs_to("/ecs/web"), task("EC2", "awslogs-stream-prefix"))  # optional off Fargate
    assert not passes(ecs.logs_to("/ecs/web"), task("EC2", "awslogs-region"))
    lacking = task("FARGATE", "awslogs-stream-prefix")
    assert not passes(ecs.logs_to("/ecs/web"), lacking)
    assert miss(ecs.logs_to("/ecs/web"), ecs.TASK_DEFINITION, lacking["taskDefinitionArn"], lacking) == (
        f"Task definition {lacking['taskDefinitionArn']}: container web sends its logs to /ecs/web without "
        "awslogs-stream-prefix (awslogs driver), so the task cannot start."
    )


def test_cloudfront_distribution(aws_session) -> None:
    origin = "site.s3.us-east-1.amazonaws.com"
    distribution_id = aws_session.client("cloudfront").create_distribution(
        DistributionConfig=distribution_config(origin)
    )["Distribution"]["Id"]
    distribution = described(cloudfront.DISTRIBUTION, aws_session, distribution_id)
    for requirement in (cloudfront.enabled(), cloudfront.origin(origin), cloudfront.default_root_object()):
        assert passes(requirement, distribution), requirement.check
    assert miss(cloudfront.viewer_protocol(), cloudfront.DISTRIBUTION, distribution_id, distribution) == (
        f"CloudFront distribution {distribution_id}: viewer protocol policy should be https-only or redirect-to-https, "
        "but is allow-all."
    )


def test_route53_zone_and_records(aws_session) -> None:
    client = aws_session.client("route53")
    zone_id = client.create_hosted_zone(Name="lab.example.com", CallerReference=unique("ref"))["HostedZone"]["Id"]
    client.change_resource_record_sets(
        HostedZoneId=zone_id,
        ChangeBatch={
            "Changes": [
                {
                    "Action": "CREATE",
                    "ResourceRecordSet": {
                        "Name": "www.lab.example.com",
                        "Type": "CNAME",
                        "TTL": 300,
                        "ResourceRecords": [{"Value": "lb.example.net"}],
                    },
                }
            ]
        },
    )
    zone = described(route53.HOSTED_ZONE, aws_session, zone_id)
    assert passes(route53.domain("lab.example.com"), zone)
    assert passes(route53.record("www.lab.example.com", "CNAME", "lb.example.net"), zone)
    assert miss(route53.private(), route53.HOSTED_ZONE, zone_id, zone) == (
        f"Hosted zone {zone_id}: private zone should be private, but is public."
    )
    assert miss(route53.record("api.lab.example.com", "A"), route53.HOSTED_ZONE, zone_id, zone) == (
        f"Hosted zone {zone_id}: it has no A record api.lab.example.com."
    )


def test_cloudtrail_trail(aws_session) -> None:
    bucket = unique("trail-logs")
    aws_session.client("s3").create_bucket(Bucket=bucket)
    name = unique("trail")
    client = aws_session.client("cloudtrail")
    client.create_trail(Name=name, S3BucketName=bucket, IsMultiRegionTrail=True, EnableLogFileValidation=True)
    trail = described(cloudtrail.TRAIL, aws_session, name)
    for requirement in (cloudtrail.multi_region(), cloudtrail.log_file_validation(), cloudtrail.to_bucket(bucket)):
        assert passes(requirement, trail), requirement.check
    assert miss(cloudtrail.is_logging(), cloudtrail.TRAIL, name, trail) == (
        f"Trail {name}: logging should be enabled, but is disabled."
    )
    client.start_logging(Name=name)
    assert passes(cloudtrail.is_logging(), described(cloudtrail.TRAIL, aws_session, name))


def test_ecr_kms_encryption(aws_session) -> None:
    name = unique("app")
    aws_session.client("ecr").create_repository(repositoryName=name)
    repository = described(ecr.REPOSITORY, aws_session, name)
    assert passes(ecr.encryption("AES256"), repository)
    assert miss(ecr.encryption("KMS"), ecr.REPOSITORY, name, repository) == (
        f"ECR repository {name}: encryption should be KMS, but is AES256."
    )


def test_cloudfront_price_class(aws_session) -> None:
    config = distribution_config("site.s3.us-east-1.amazonaws.com", PriceClass="PriceClass_100")
    distribution_id = aws_session.client("cloudfront").create_distribution(DistributionConfig=config)["Distribution"][
        "Id"
    ]
    distribution = described(cloudfront.DISTRIBUTION, aws_session, distribution_id)
    assert passes(cloudfront.price_class("PriceClass_100"), distribution)
    assert miss(cloudfront.price_class("PriceClass_All"), cloudfront.DISTRIBUTION, distribution_id, distribution) == (
        f"CloudFront distribution {distribution_id}: price class should be PriceClass_All, but is PriceClass_100."
    )


def test_cloudtrail_kms(aws_session) -> None:
    bucket, name = unique("trail-logs"), unique("trail")
    aws_session.client("s3").create_bucket(Bucket=bucket)
    aws_session.client("cloudtrail").create_trail(Name=name, S3BucketName=bucket)
    assert miss(cloudtrail.encrypted(), cloudtrail.TRAIL, name, described(cloudtrail.TRAIL, aws_session, name)) == (
        f"Trail {name}: KMS key should be set, but is none."
    )
    key = aws_session.client("kms").create_key()["KeyMetadata"]["Arn"]
    aws_session.client("cloudtrail").update_trail(Name=name, KmsKeyId=key)
    assert passes(cloudtrail.encrypted(), described(cloudtrail.TRAIL, aws_session, name))


def test_a_service_on_an_older_revision_is_told_which_is_the_latest(aws_session, tmp_path) -> None:
    """A bare family is its latest ACTIVE revision, and the miss says which that is (resolved through AWS)."""
    from harness.core.lab import load_lab
    from harness.kit.step import Step
    from tests.kit.conftest import make_context

    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "lab.yaml").write_text(
        'project: p\nobjectives:\n  - id: "01"\n    steps:\n      - id: "01"\n'
        "        outputs: [{name: 01_01_service, type: AWS::ECS::Service}]\n",
        encoding="utf-8",
    )
    spec = load_lab(tmp_path).steps["01.01"]
    client = aws_session.client("ecs")
    cluster, family = unique("apps"), unique("web")
    client.create_cluster(clusterName=cluster)
    for _ in range(2):
        client.register_task_definition(
            family=family, containerDefinitions=[{"name": "web", "image": "nginx", "memory": 64}]
        )
    arn = client.create_service(cluster=cluster, serviceName=unique("svc"), taskDefinition=f"{family}:1")["service"][
        "serviceArn"
    ]
    step = Step(aws_session, make_context(spec, events=[("AWS::ECS::Service", arn)]))
    with step:
        step.find("01_01_service", ecs.SERVICE, [ecs.runs(family)])
    assert step.result()["failure_context"]["issue"] == (
        f"ECS service {short_name(arn)}: it runs {family}:1, not the latest ACTIVE revision of {family} ({family}:2)."
    )
