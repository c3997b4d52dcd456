"""Did the balls move while the camera was down? A shot played during an outage is never seen.

A camera that drops (a cable, a stream's network, a stalled driver) and comes back a few
seconds later has missed whatever happened meanwhile: a shot struck during the outage makes
no strike, no events and no call, and the match goes on one shot behind with nothing said.
The balls tell: their places before the outage are kept, and a moment after the picture is
back (for the tracker to find them again) they are compared with where they are now.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

OUTAGE_STATES = frozenset({"stalled", "reconnecting"})
"""Source states (capture.SourceStatus) in which no picture comes."""


def _on_table(balls: Iterable[Mapping[str, Any]]) -> dict[str, tuple[float, float]]:
    """Ball name -> (x_mm, y_mm) of the balls seen on the table."""
    return {
        str(b["ball"]): (float(b["x_mm"]), float(b["y_mm"]))
        for b in balls
        if b.get("status") == "on_table"
    }


def _present(balls: Iterable[Mapping[str, Any]]) -> set[str]:
    """Names of the balls on the table, seen or hidden (a player's arm over them)."""
    return {str(b["ball"]) for b in balls if b.get("status") in ("on_table", "occluded")}


def _names(balls: list[str]) -> str:
    return ", ".join("the cue ball" if b == "cue" else f"the {b}" for b in balls)


@dataclass(slots=True)
class OutageWatch:
    """Compares the balls before a camera outage with the balls after it.

    Attributes:
        settle_s: wait after the picture is back before comparing (the tracker finds the
            balls again); raising it compares later, lowering it risks comparing with
            balls not yet found.
        moved_mm: how far a ball must be from its place to count as moved (a ball's width:
            the tracker's jitter at rest is a few mm); lowering it alerts on smaller moves.
    """

    settle_s: float = 1.0
    moved_mm: float = 60.0
    _before: dict[str, tuple[float, float]] | None = None
    _down: bool = False
    _resumed_s: float | None = None
    last: dict[str, Any] = field(default_factory=dict)
    """The latest finding: {"moved": [...], "gone": [...]} (empty when none)."""

    in_shot: bool = False
    """A stroke was seen and its shot has not ended: balls moving are the shot's (an outage
    then shows in the call's coverage instead)."""

    def on_state(self, state: str, balls: Iterable[Mapping[str, Any]], now_s: float) -> None:
        """The source's state changed; `balls` are the latest known (from before it)."""
        if state in OUTAGE_STATES and not self._down:
            self._down = True
            if self._before is None and not self.in_shot:  # a second outage: keep the first
                self._before = _on_table(balls)
            self._resumed_s = None
        elif state == "live" and self._down:
            self._down = False
            self._resumed_s = now_s

    def on_event(self, kind: str) -> None:
        """A camera event: a stroke after the outage explains what moved."""
        if kind == "strike":
            self.in_shot = True
            if not self._down:
                self._before, self._resumed_s = None, None
        elif kind == "shot_end":
            self.in_shot = False

    def on_balls(self, balls: Iterable[Mapping[str, Any]], now_s: float) -> str | None:
        """The alert for the operator once the balls are compared (None: nothing to say)."""
        resumed_s, before = self._resumed_s, self._before
        if resumed_s is None or before is None or now_s - resumed_s < self.settle_s:
            return None
        self._before, self._resumed_s = None, None
        balls = list(balls)
        after = _on_table(balls)
        moved = sorted(
            name
            for name, (x, y) in before.items()
            if name in after and math.hypot(after[name][0] - x, after[name][1] - y) > self.moved_mm
        )
        gone = sorted(set(before) - _present(balls))
        self.last = {"moved": moved, "gone": gone} if moved or gone else {}
        if not self.last:
            return None
        what = [f"{_names(moved)} moved" if moved else "", f"{_names(gone)} gone" if gone else ""]
        return (
            f"the balls changed while the camera was down ({'; '.join(w for w in what if w)}): "
            "if a shot was played, enter it as a shot the camera missed"
        )
