"""CloudTrail's management events judged from basic or advanced event selectors, on moto and over every form."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.kit import cloudtrail
from harness.kit.cloudtrail import management_events_recorded
from tests.kit.conftest import described, miss, passes, unique

READ_ONLY = {"All": ["true", "false"], "ReadOnly": ["true"], "WriteOnly": ["false"]}


def basic(read_write: str, *, management: bool = True) -> dict:
    return {"EventSelectors": [{"ReadWriteType": read_write, "IncludeManagementEvents": management}]}


def advanced(read_write: str, *, spell_all_as_absent: bool = True) -> dict:
    fields = [{"Field": "eventCategory", "Equals": ["Management"]}]
    if read_write != "All" or not spell_all_as_absent:
        fields.append({"Field": "readOnly", "Equals": READ_ONLY[read_write]})
    return {"AdvancedEventSelectors": [{"Name": "management", "FieldSelectors": fields}]}


OBJECTS = [{"Field": "eventCategory", "Equals": ["Data"]}, {"Field": "resources.type", "Equals": ["AWS::S3::Object"]}]
DATA_ONLY = {"AdvancedEventSelectors": [{"Name": "objects", "FieldSelectors": OBJECTS}]}


def trail(read_write: str) -> st.SearchStrategy[dict]:
    """Every selector form that records exactly `read_write` management events."""
    also_data = DATA_ONLY["AdvancedEventSelectors"] + advanced(read_write)["AdvancedEventSelectors"]
    also_off = basic(read_write)["EventSelectors"] + basic("All", management=False)["EventSelectors"]
    forms = [
        st.just(basic(read_write)),
        st.booleans().map(lambda absent: advanced(read_write, spell_all_as_absent=absent)),
        st.just({"EventSelectors": also_off}),
        st.just({"AdvancedEventSelectors": also_data}),
    ]  # fmt: skip
    if read_write == "All":
        forms += [
            st.just({"EventSelectors": [], "AdvancedEventSelectors": []}),  # no selectors: AWS's default
            st.just({"EventSelectors": [*basic("ReadOnly")["EventSelectors"], *basic("WriteOnly")["EventSelectors"]]}),
            st.just({"AdvancedEventSelectors": [*advanced("ReadOnly")["AdvancedEventSelectors"],
                                                *advanced("WriteOnly")["AdvancedEventSelectors"]]}),
        ]  # fmt: skip
    return st.one_of(forms)


def judged(selectors: dict) -> dict:
    return {"Name": "audit", "Selectors": {"EventSelectors": [], "AdvancedEventSelectors": [], **selectors}}


@given(recorded=st.sampled_from(["All", "ReadOnly", "WriteOnly"]), data=st.data())
def test_each_form_of_selectors_records_what_it_says(recorded: str, data: st.DataObject) -> None:
    selectors = data.draw(trail(recorded))
    assert management_events_recorded(judged(selectors)["Selectors"]) == cloudtrail.READ_WRITE[recorded]
    for required in ("All", "ReadOnly", "WriteOnly"):
        holds = cloudtrail.READ_WRITE[required] <= cloudtrail.READ_WRITE[recorded]
        assert passes(cloudtrail.records_management_events(required), judged(selectors)) is holds


@pytest.mark.parametrize("selectors", [basic("All", management=False), DATA_ONLY, {**DATA_ONLY, **basic("All")}])
def test_selectors_without_management_events_record_none(selectors: dict) -> None:
    """Advanced selectors replace basic ones: a trail with only data selectors records no management events."""
    assert management_events_recorded(judged(selectors)["Selectors"]) == frozenset()
    assert miss(cloudtrail.records_management_events(), cloudtrail.TRAIL, "audit", judged(selectors)) == (
        "Trail audit: management events should be All, but is none."
    )


WITHOUT_KMS = [
    {"EventSelectors": [{"ReadWriteType": "All", "IncludeManagementEvents": True,
                         "ExcludeManagementEventSources": ["kms.amazonaws.com"]}]},
    {"AdvancedEventSelectors": [{"Name": "management", "FieldSelectors": [
        {"Field": "eventCategory", "Equals": ["Management"]},
        {"Field": "eventSource", "NotEquals": ["kms.amazonaws.com"]},
    ]}]},
]  # fmt: skip


@pytest.mark.parametrize("selectors", WITHOUT_KMS, ids=["basic", "advanced"])
def test_selectors_that_leave_a_source_out_record_not_all_management_events(selectors: dict) -> None:
    """The console's "Exclude AWS KMS events": the trail records some management events, not all of them."""
    assert not passes(cloudtrail.records_management_events(), judged(selectors))
    assert not passes(cloudtrail.records_management_events("WriteOnly"), judged(selectors))


def test_on_a_trail_in_moto(aws_session) -> None:
    bucket, name = unique("trail-logs"), unique("audit")
    aws_session.client("s3").create_bucket(Bucket=bucket)
    client = aws_session.client("cloudtrail")
    client.create_trail(Name=name, S3BucketName=bucket)
    assert passes(cloudtrail.records_management_events(), described(cloudtrail.TRAIL, aws_session, name))
    client.put_event_selectors(TrailName=name, AdvancedEventSelectors=advanced("WriteOnly")["AdvancedEventSelectors"])
    found = described(cloudtrail.TRAIL, aws_session, name)
    assert passes(cloudtrail.records_management_events("WriteOnly"), found)
    assert miss(cloudtrail.records_management_events(), cloudtrail.TRAIL, name, found) == (
        f"Trail {name}: management events should be All, but is WriteOnly."
    )
    with pytest.raises(ValueError, match="'Write'"):
        cloudtrail.records_management_events("Write")


NARROWED = [
    ({"EventSelectors": [{"ReadWriteType": "All", "IncludeManagementEvents": True,
                          "ExcludeManagementEventSources": ["kms.amazonaws.com"]}]},
     frozenset(), "All except kms.amazonaws.com"),
    ({"EventSelectors": [{"ReadWriteType": "All", "ExcludeManagementEventSources": ["rdsdata.amazonaws.com"]},
                         {"ReadWriteType": "ReadOnly"}]},
     frozenset({"read"}), "ReadOnly, and WriteOnly except rdsdata.amazonaws.com"),
    ({"AdvancedEventSelectors": [{"Name": "m", "FieldSelectors": [
        {"Field": "eventCategory", "Equals": ["Management"]},
        {"Field": "eventSource", "NotEquals": ["kms.amazonaws.com", "rdsdata.amazonaws.com"]}]}]},
     frozenset(), "All except kms.amazonaws.com, rdsdata.amazonaws.com"),
    ({"AdvancedEventSelectors": [{"Name": "m", "FieldSelectors": [
        {"Field": "eventCategory", "Equals": ["Management"]}, {"Field": "readOnly", "Equals": ["false"]},
        {"Field": "eventSource", "NotStartsWith": ["kms."]}]}]},
     frozenset(), "WriteOnly except kms.*"),
    ({"AdvancedEventSelectors": [{"Name": "m", "FieldSelectors": [
        {"Field": "eventCategory", "Equals": ["Management"]},
        {"Field": "eventSource", "Equals": ["s3.amazonaws.com"]}]},
        *advanced("ReadOnly")["AdvancedEventSelectors"]]},
     frozenset({"read"}), "ReadOnly, and WriteOnly only s3.amazonaws.com"),
    ({"AdvancedEventSelectors": [{"Name": "m", "FieldSelectors": [
        {"Field": "eventCategory", "Equals": ["Management"]}, {"Field": "readOnly", "NotEquals": ["false"]}]}]},
     frozenset({"read"}), "ReadOnly"),
]  # fmt: skip


@pytest.mark.parametrize(("selectors", "everywhere", "shown"), NARROWED)
def test_management_events_narrowed_by_source_are_not_all_recorded(selectors: dict, everywhere, shown: str) -> None:
    """Excluding KMS or RDS Data events (basic `ExcludeManagementEventSources`, or an advanced `eventSource`
    condition) records the management events of the other sources only: not all of them."""
    assert management_events_recorded(judged(selectors)["Selectors"]) == everywhere
    assert miss(cloudtrail.records_management_events(), cloudtrail.TRAIL, "audit", judged(selectors)) == (
        f"Trail audit: management events should be All, but is {shown}."
    )
    assert passes(cloudtrail.records_management_events("ReadOnly"), judged(selectors)) is ("read" in everywhere)


def test_excluded_sources_on_a_trail_in_moto(aws_session) -> None:
    bucket, name = unique("trail-logs"), unique("audit")
    aws_session.client("s3").create_bucket(Bucket=bucket)
    client = aws_session.client("cloudtrail")
    client.create_trail(Name=name, S3BucketName=bucket)
    client.put_event_selectors(TrailName=name, EventSelectors=[
        {"ReadWriteType": "All", "IncludeManagementEvents": True,
         "ExcludeManagementEventSources": ["kms.amazonaws.com"]}
    ])  # fmt: skip
    found = described(cloudtrail.TRAIL, aws_session, name)
    assert miss(cloudtrail.records_management_events(), cloudtrail.TRAIL, name, found) == (
        f"Trail {name}: management events should be All, but is All except kms.amazonaws.com."
    )
    fields = [{"Field": "eventCategory", "Equals": ["Management"]},
              {"Field": "eventSource", "NotEquals": ["rdsdata.amazonaws.com"]}]  # fmt: skip
    client.put_event_selectors(TrailName=name, AdvancedEventSelectors=[{"Name": "m", "FieldSelectors": fields}])
    found = described(cloudtrail.TRAIL, aws_session, name)
    assert not passes(cloudtrail.records_management_events(), found)
    client.put_event_selectors(TrailName=name, AdvancedEventSelectors=advanced("All")["AdvancedEventSelectors"])
    assert passes(cloudtrail.records_management_events(), described(cloudtrail.TRAIL, aws_session, name))
