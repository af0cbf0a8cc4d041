"""Errors that mean "the caller's input is wrong": reported in one line, never as a traceback."""


class BadInput(Exception):
    """A user's mistake (a spec, a step key, a context file): the message names what is wrong and where."""


class LabError(BadInput):
    """A lab that does not validate; `problems` holds one line per problem, each naming file and step."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems
