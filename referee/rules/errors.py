"""The one error the rules engine raises on bad input."""

from __future__ import annotations


class RulesInputError(ValueError):
    """An input the rules cannot judge: names the offending field; the state is unchanged.

    Attributes:
        field: dotted path of the offending input, e.g. ``"shot.pocketed[1].pocket"``.
        problem: what is wrong with it, in words.
    """

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem
