"""The pipeline's own game state, kept to the match the service referees.

The pipeline judges every shot it finds (`referee.pipeline_calls.CallStage`): it needs the game
state to fill the break's facts (`object_balls_to_cushion_on_break` when the game says the shot
breaks), to drop balls the game says are down, and to say which doubts would change the call
("if instead ..., the call would be: Foul by B ..."). Left alone it plays its own game: it never
hears the operator's calls, push-outs, option choices, warnings, racks, undos or corrections,
and it starts a fresh rack after every restart, so its doubts named the wrong shooter and
assumed options nobody had ("assumption: option choice not known") on the operator's page.

`ShadowSync` holds the match as the service last published it (set on the event loop) and
puts it into the pipeline's call stage before each frame (on the pipeline thread). The service
still judges every shot itself; the pipeline's copy only shapes the facts and doubts it sends.

`camera_facts` drops from a camera shot the balls the match says are already down, as the
review does with its own game state: a ball seen dropping again (a ghost at a pocket) would
make the rules refuse the whole shot, and the shot would go uncalled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.declarations import ShotDeclarations
from referee.live.session import MatchView
from referee.pipeline_calls import on_table_only
from referee.rules import GameState


class _MatchDeclarations:
    """What the operator declared for the next shot, in the shape the call stage reads a
    declarations file (`DeclarationLog`): known, so nothing is assumed."""

    known = True

    def __init__(self, declared: ShotDeclarations) -> None:
        self._declared = declared

    def for_shot(
        self, shot: int, strike_time_s: float, previous_strike_time_s: float | None
    ) -> ShotDeclarations:
        return self._declared


def _declared(view: MatchView) -> ShotDeclarations:
    said = {k: v for k, v in view.declarations.items() if k != "referee_fouls" and v}
    return ShotDeclarations(said, tuple(view.declarations.get("referee_fouls") or ()))


class ShadowSync:
    """The match as last published, handed to the pipeline thread.

    `publish` runs on the event loop, `apply` on the pipeline thread: the snapshot is one
    tuple swapped whole, so the pipeline always reads one consistent match.
    """

    def __init__(self) -> None:
        self._snapshot: tuple[int, GameState, ShotDeclarations, int] | None = None
        self._applied = -1

    def publish(self, view: MatchView | None) -> None:
        """Take the match as it now stands (None: no match; the pipeline is left alone)."""
        if view is None:
            return
        version = self._snapshot[0] + 1 if self._snapshot is not None else 0
        state = GameState.from_json(view.state)
        self._snapshot = (version, state, _declared(view), view.rack)

    def apply(self, pipeline: Any) -> bool:
        """Put the match into the pipeline's call stage, if it changed; True if it did."""
        snapshot = self._snapshot
        calls = getattr(pipeline, "calls", None)
        if snapshot is None or calls is None or snapshot[0] == self._applied:
            return False
        version, state, declared, rack = snapshot
        calls.follow(state, _MatchDeclarations(declared), rack)
        self._applied = version
        return True


def camera_facts(
    facts: Mapping[str, Any], balls_on_table: list[int] | tuple[int, ...]
) -> tuple[dict[str, Any], list[str]]:
    """A camera shot's facts without the object balls the match says are already down, as
    the review's call stage does (`referee.pipeline_calls.on_table_only`).

    Returns:
        (the facts, a sentence per change for the call's review reasons).
    """
    return on_table_only(facts, balls_on_table)


class ShadowSynced:
    """The pipeline, with the match put into its call stage before each frame it judges."""

    def __init__(self, pipeline: Any, shadow: ShadowSync) -> None:
        self._pipeline = pipeline
        self._shadow = shadow

    def process(self, frame: Any) -> Any:
        self._shadow.apply(self._pipeline)
        return self._pipeline.process(frame)

    def judge_end(self) -> Any:
        """The shot the input ended in (`Pipeline.judge_end`); nothing for a pipeline without."""
        judge_end = getattr(self._pipeline, "judge_end", None)
        if judge_end is None:
            return (), ()
        self._shadow.apply(self._pipeline)
        return judge_end()

    def __getattr__(self, name: str) -> Any:  # calibration...
        return getattr(self._pipeline, name)
