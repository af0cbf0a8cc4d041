"""What ends the judging of a step early, and `with step:` absorbs: a critical check failed, or the module read an
output that has no resource."""

from __future__ import annotations


class StopStep(Exception):
    """A critical check failed: the rest of the step cannot be judged. `with step:` absorbs it."""


class Absent(StopStep, KeyError):
    """The module read a key of an output that has no candidate at all (`dlq["QueueArn"]` after a `find` that found
    nothing): the output stays `not_found` and the step fails, as if the module had tested `if dlq:` first. A
    KeyError too, so that modules written when `find` returned None for no candidate keep their verdicts."""

    def __init__(self, output: str, key: str, label: str | None = None) -> None:
        super().__init__(f"{output} has no resource to read {key!r} from")
        self.output = output
        self.label = label or output
        """The output as a learner knows it (`the SQS queue this step asks for`), for a miss's sentence."""
