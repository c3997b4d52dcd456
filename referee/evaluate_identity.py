"""Where a run's identities switch: each switch `tenball eval` counts, one by one.

`referee.evaluate_tracks` counts identity switches (a truth ball matched to a run ball of
another name than on its previous matched frame); this lists them: which truth ball, from
which frame to which, and the names the run gave it before and after, so a switch can be
looked up in the frames (a break's first contact, a ball hidden behind an arm).

    python -m referee.evaluate_identity CLIP_OR_TRUTH RUN
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.evaluate_io import TrackRows, read_tracks
from referee.evaluate_tracks import match_rows
from tracking.types import BALL_NAMES

DEFAULT_GATE_MM = 57.15
"""The matching gate `referee.evaluate_tracks.score_tracks` uses (one ball diameter)."""


@dataclass(frozen=True, slots=True)
class Switch:
    """One identity switch.

    Attributes:
        ball: the truth ball (0 cue, 1..10).
        frame_before: the last frame it was matched before the switch.
        frame: the frame it was matched under the new name.
        name_before: the run's ball matched to it at ``frame_before``.
        name_after: the run's ball matched to it at ``frame``.
    """

    ball: int
    frame_before: int
    frame: int
    name_before: int
    name_after: int

    def __str__(self) -> str:
        return (
            f"truth {BALL_NAMES[self.ball]}: frame {self.frame_before} -> {self.frame}, "
            f"run {BALL_NAMES[self.name_before]} -> {BALL_NAMES[self.name_after]}"
        )


def identity_switches(
    truth: TrackRows, run: TrackRows, gate_mm: float = DEFAULT_GATE_MM
) -> list[Switch]:
    """The switches `referee.evaluate_tracks.score_tracks` counts, by truth ball, then frame.

    Args:
        truth: truth rows.
        run: run rows.
        gate_mm: largest centre distance of a match, mm.
    """
    pairs = match_rows(truth, run, gate_mm)
    balls = truth.ball[pairs.truth]
    frames = truth.frame[pairs.truth]
    names = run.ball[pairs.run]
    order = np.lexsort((frames, balls))
    balls, frames, names = balls[order], frames[order], names[order]
    changed = np.flatnonzero((balls[1:] == balls[:-1]) & (names[1:] != names[:-1]))
    return [
        Switch(
            int(balls[i + 1]), int(frames[i]), int(frames[i + 1]), int(names[i]), int(names[i + 1])
        )
        for i in changed
    ]


def _tracks_of(folder: Path) -> Path:
    """tracks.csv of a run folder, a truth folder or a clip (its truth/ folder)."""
    inside = folder / "truth" / "tracks.csv"
    return inside if inside.exists() else folder / "tracks.csv"


def main(argv: list[str] | None = None) -> int:
    """Print the switches of RUN against CLIP_OR_TRUTH, one a line, then their count."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m referee.evaluate_identity CLIP_OR_TRUTH RUN", file=sys.stderr)
        return 2
    truth = read_tracks(_tracks_of(Path(args[0])))
    run = read_tracks(_tracks_of(Path(args[1])))
    switches = identity_switches(truth, run)
    for switch in switches:
        print(switch)
    print(f"{len(switches)} identity switches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
