"""Errors that mean "the caller's input is wrong": reported in one line, never as a traceback."""


class BadInput(Exception):
    """A user's mistake (a spec, a step key, a context file): the message names what is wrong and where."""


class LabError(BadInput):
    """A lab that does not validate; `problems` holds one line per problem, each naming file and step."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class LabUnreadable(LabError):
    """A lab that cannot be read at all (no directory, no spec file, not YAML): one problem, naming the file and
    where in it; bad input even for `stepeval check`, which lists the problems of a lab it could read."""
