"""An enabled rule on the default bus firing every 5 minutes (rate or cron) that targets the topic, and a topic
policy that lets EventBridge publish (from that rule or from any source)."""

from harness.kit import events, sns
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        topic = step.input("03_01_topic", sns.TOPIC)
        rule = step.find("03_02_rule", events.RULE, [
            events.on_bus("default"),
            events.enabled(),
            events.schedule("rate(5 minutes)"),
            events.targets(topic),
        ])  # fmt: skip
        step.find("03_01_topic", sns.TOPIC, [sns.accepts_from("events.amazonaws.com", rule)])
    return step.result()
