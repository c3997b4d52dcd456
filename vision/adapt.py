"""Adapting identification to a clip: which ball set (palette) is on the table.

Sets differ in a few balls (the standard set's purple 4 and maroon 7, a broadcast set's pink
4 and brown 7). Which palette explains the balls best is judged on sharp balls only (a
motion-blur streak's colour is mixed with the cloth and would pull toward whichever set has
a ball nearer the cloth) and summed over the clip: once the evidence is enough the choice is
kept, and undone only by as much evidence against it, so one odd frame never flips the
names of every 4 and 7.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.assignment import labelled_costs

MIN_SHARP_BALLS = 3
"""Fewest sharp balls a frame needs to add evidence (two balls say little about a set)."""


@dataclass(frozen=True, slots=True)
class PaletteVote:
    """The clip's evidence between two palettes (the first and the second of a list).

    Attributes:
        evidence: summed, per-frame capped log-likelihood (nats) in favour of the second
            palette over the first; negative favours the first.
        chosen: the palette decided on (0 or 1), or -1 while the evidence is short.
    """

    evidence: float = 0.0
    chosen: int = -1

    def updated(
        self, leaning: NDArray[np.float64], evidence_needed: float, frame_cap: float
    ) -> PaletteVote:
        """The vote after one frame.

        Args:
            leaning: (N,) how much each sharp ball of the frame favours the second palette
                (nats; `frame_leaning`).
            evidence_needed: evidence at which a palette is chosen; raising it waits for
                more frames before deciding, and makes a decision harder to undo.
            frame_cap: most evidence one frame adds.
        """
        if len(leaning) < MIN_SHARP_BALLS:
            return self
        step = float(np.clip(leaning.sum(), -frame_cap, frame_cap))
        # Clamped at twice the threshold: undoing a choice takes as much contrary evidence
        # as making one.
        evidence = float(np.clip(self.evidence + step, -2 * evidence_needed, 2 * evidence_needed))
        chosen = self.chosen
        if evidence >= evidence_needed:
            chosen = 1
        elif evidence <= -evidence_needed:
            chosen = 0
        return PaletteVote(evidence, chosen)

    def choice(self, frame_costs: NDArray[np.float64]) -> int:
        """The palette to name this frame's balls with: the decided one, else the one whose
        (2,) -log likelihood of the frame's best labelling is lower (a frame's balls
        together tell sets apart best; a lone ball's leaning is only a vote)."""
        if self.chosen >= 0:
            return self.chosen
        return int(np.argmin(frame_costs))


def frame_leaning(
    first: NDArray[np.float64], second: NDArray[np.float64], outlier_nats: float
) -> NDArray[np.float64]:
    """(N,) how much each ball favours the second palette over the first (nats, each ball
    within +-1), from its (N, 11) class scores under each: its cost in the frame's best
    one-per-class labelling under the first minus under the second
    (`vision.assignment.labelled_costs`), so a ball is judged as the number it would be
    given, and a ball that fits nothing (a hand, a patch of cloth) says at most the outlier
    cost's difference, capped so no single ball decides."""
    difference = labelled_costs(first, outlier_nats) - labelled_costs(second, outlier_nats)
    leaning: NDArray[np.float64] = np.clip(difference, -1.0, 1.0)
    return leaning
