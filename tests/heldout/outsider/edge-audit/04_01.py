"""Outsider: step 04.01 (the audit bucket, its CloudTrail policy and the multi-Region trail)."""

from harness.authoring.scenarios import mistake

from ._lib import account, all_of, bucket, doc

AUDIT = "edge-audit-trail-logs-outsider"
TRAIL = "edge-audit-trail"

# Ambiguous to me: a trail with an S3 key prefix writes under PREFIX/AWSLogs/ACCOUNT/, which the step's
# "s3:PutObject under AWSLogs/ACCOUNT/" does not mention; no state here uses a prefix.


def _acl(name):
    return {
        "Sid": "AWSCloudTrailAclCheck",
        "Effect": "Allow",
        "Principal": {"Service": "cloudtrail.amazonaws.com"},
        "Action": "s3:GetBucketAcl",
        "Resource": f"arn:aws:s3:::{name}",
    }


def _write(name, prefix, *, acl=True, source=None):
    condition = {"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control"}} if acl else {}
    if source:
        condition.setdefault("StringEquals", {})["aws:SourceArn"] = source
    statement = {
        "Sid": "AWSCloudTrailWrite",
        "Effect": "Allow",
        "Principal": {"Service": "cloudtrail.amazonaws.com"},
        "Action": "s3:PutObject",
        "Resource": f"arn:aws:s3:::{name}/{prefix}",
    }
    if condition:
        statement["Condition"] = condition
    return statement


def _audit_bucket(aws, name=AUDIT, *statements):
    bucket(aws, name)
    policy = statements or (_acl(name), _write(name, f"AWSLogs/{account(aws)}/*"))
    aws.client("s3").put_bucket_policy(Bucket=name, Policy=doc(*policy))
    return name


def _trail(aws, name=TRAIL, to=AUDIT, *, regions=True, validation=True, start=True, selectors=None, advanced=None):
    cloudtrail = aws.client("cloudtrail")
    cloudtrail.create_trail(Name=name, S3BucketName=to, IsMultiRegionTrail=regions, EnableLogFileValidation=validation)
    if selectors:
        cloudtrail.put_event_selectors(TrailName=name, EventSelectors=selectors)
    if advanced:
        cloudtrail.put_event_selectors(TrailName=name, AdvancedEventSelectors=advanced)
    if start:
        cloudtrail.start_logging(Name=name)


@mistake(expect="pass")
def right_default_selectors(aws, handles):
    """Right: the audit bucket with CloudTrail's policy, a multi-Region trail with validation, logging, AWS's
    default selectors (all management events)."""
    _audit_bucket(aws)
    _trail(aws)


@mistake(expect="pass")
def equivalent_advanced_selectors_and_source_arn(aws, handles):
    """Equivalent: advanced event selectors (Management, read and write: no readOnly field), the write statement
    scoped to the trail's ARN as aws:SourceArn; the policy's statements in the other order."""
    arn = f"arn:aws:cloudtrail:{aws.region_name}:{account(aws)}:trail/{TRAIL}"
    _audit_bucket(aws, AUDIT, _write(AUDIT, f"AWSLogs/{account(aws)}/*", source=arn), _acl(AUDIT))
    advanced = [{"Name": "Management", "FieldSelectors": [{"Field": "eventCategory", "Equals": ["Management"]}]}]
    _trail(aws, advanced=advanced)


@mistake(expect="pass")
def right_beside_an_older_single_region_trail(aws, handles):
    """Decoy first: a single-Region trail scratch-trail (no validation, not logging) into a scratch bucket, then
    the right bucket and trail with explicit basic selectors (All, management). Must pass, resolving the new."""
    _audit_bucket(aws, "edge-audit-scratch-logs")
    _trail(aws, "scratch-trail", "edge-audit-scratch-logs", regions=False, validation=False, start=False)
    _audit_bucket(aws)
    _trail(aws, selectors=[{"ReadWriteType": "All", "IncludeManagementEvents": True}])


@mistake(issue=all_of(f"({TRAIL}|trail)", "(region)"))
def single_region_trail(aws, handles):
    """Cause: the trail edge-audit-trail records only its own Region (IsMultiRegionTrail false)."""
    _audit_bucket(aws)
    _trail(aws, regions=False)


@mistake(issue=all_of(f"({TRAIL}|trail)", "(validation|integrity|digest)"))
def no_log_file_validation(aws, handles):
    """Cause: the trail edge-audit-trail has log file validation off."""
    _audit_bucket(aws)
    _trail(aws, validation=False)


@mistake(issue=all_of(f"({TRAIL}|trail)", "(logging|started|stopped)"))
def trail_never_started(aws, handles):
    """Cause: the trail edge-audit-trail was created by the API and never started (not logging)."""
    _audit_bucket(aws)
    _trail(aws, start=False)


@mistake(issue=all_of(f"({TRAIL}|trail)", "(management|read|ReadWriteType|WriteOnly)"))
def write_only_management_events(aws, handles):
    """Cause: the trail records management events WriteOnly, not read and write."""
    _audit_bucket(aws)
    _trail(aws, selectors=[{"ReadWriteType": "WriteOnly", "IncludeManagementEvents": True}])


@mistake(issue=all_of(f"({TRAIL}|trail)", "(management)"))
def data_events_only(aws, handles):
    """Cause: the trail's selector logs S3 data events and excludes management events."""
    _audit_bucket(aws)
    data = [{"Type": "AWS::S3::Object", "Values": ["arn:aws:s3"]}]
    _trail(aws, selectors=[{"ReadWriteType": "All", "IncludeManagementEvents": False, "DataResources": data}])


@mistake(
    issue=all_of(
        "(trail|bucket)", "(separate|other than|not the|must not|same|site|apart|01_01|no s3 bucket was created)"
    )
)
def trail_into_the_site_bucket(aws, handles):
    """Cause: the trail delivers to the site's bucket (which got CloudTrail's statements), not a separate one."""
    site = handles["01_01_bucket"]
    aws.client("s3").put_bucket_policy(Bucket=site, Policy=doc(_acl(site), _write(site, f"AWSLogs/{account(aws)}/*")))
    _trail(aws, to=site)


@mistake(issue=all_of(f"({AUDIT}|bucket)", "(bucket-owner-full-control|acl|x-amz-acl)"))
def write_without_the_acl_condition(aws, handles):
    """Cause: the audit bucket's PutObject statement has no s3:x-amz-acl = bucket-owner-full-control condition."""
    _audit_bucket(aws, AUDIT, _acl(AUDIT), _write(AUDIT, f"AWSLogs/{account(aws)}/*", acl=False))
    _trail(aws)


@mistake(issue=all_of(f"({AUDIT}|bucket)", "GetBucketAcl"))
def no_acl_check_statement(aws, handles):
    """Cause: the audit bucket's policy lets CloudTrail PutObject but not s3:GetBucketAcl on the bucket."""
    _audit_bucket(aws, AUDIT, _write(AUDIT, f"AWSLogs/{account(aws)}/*"))
    _trail(aws)


@mistake(issue=all_of(f"({AUDIT}|bucket)", "(PutObject|AWSLogs)"))
def write_under_another_account(aws, handles):
    """Mis-wired: PutObject is allowed under AWSLogs/111122223333/ (an account copied from the docs' example)."""
    _audit_bucket(aws, AUDIT, _acl(AUDIT), _write(AUDIT, "AWSLogs/111122223333/*"))
    _trail(aws)


@mistake(issue=all_of(f"({TRAIL}|trail)", "(management|read|write)"))
def advanced_selector_read_only(aws, handles):
    """Cause: the trail's advanced selector records management events with readOnly = true only (no writes)."""
    _audit_bucket(aws)
    fields = [{"Field": "eventCategory", "Equals": ["Management"]}, {"Field": "readOnly", "Equals": ["true"]}]
    _trail(aws, advanced=[{"Name": "Reads", "FieldSelectors": fields}])


@mistake(
    issue=all_of(f"({AUDIT}|bucket)", "(PutObject|GetBucketAcl|SourceArn|trail)", "(does not|doesn't|cover|Condition)")
)
def write_scoped_to_the_scratch_trail(aws, handles):
    """Mis-wired: the PutObject statement's aws:SourceArn names the learner's scratch-trail, not edge-audit-trail."""
    other = f"arn:aws:cloudtrail:{aws.region_name}:{account(aws)}:trail/scratch-trail"
    _audit_bucket(aws, AUDIT, _acl(AUDIT), _write(AUDIT, f"AWSLogs/{account(aws)}/*", source=other))
    _trail(aws)


# Ambiguous to me: "recording all management events (read and write)" may mean only both read and write; a trail
# that excludes KMS's management events (the console's "Exclude AWS KMS events") records not all of them, so it is
# taken as wrong here.
@mistake(issue=all_of(f"({TRAIL}|trail)", "(management|kms|exclude)"))
def kms_events_excluded(aws, handles):
    """Cause: the trail's basic selector excludes the management events of kms.amazonaws.com."""
    _audit_bucket(aws)
    selector = {
        "ReadWriteType": "All",
        "IncludeManagementEvents": True,
        "ExcludeManagementEventSources": ["kms.amazonaws.com"],
    }
    _trail(aws, selectors=[selector])


@mistake(expect="pass")
def equivalent_write_under_all_of_awslogs(aws, handles):
    """Equivalent: PutObject allowed under AWSLogs/* (every account's prefix, so also AWSLogs/ACCOUNT/), with the
    ACL condition."""
    _audit_bucket(aws, AUDIT, _acl(AUDIT), _write(AUDIT, "AWSLogs/*"))
    _trail(aws)
