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
                (nats; `vision.identify.palette_leaning`).
            evidence_needed: evidence at which a palette is chosen; raising it waits for
                more frames before deciding, and makes a decision harder to undo.
            frame_cap: most evidence one frame adds.
        """
        if np.count_nonzero(leaning) < MIN_SHARP_BALLS:
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

    def weights(self, frame_costs: NDArray[np.float64]) -> NDArray[np.float64]:
        """(K,) how much each palette's probabilities count this frame: the decided one
        alone, else each in proportion to the likelihood of the frame under it (the (K,)
        -log likelihoods of its best labelling): a frame that tells the sets apart names
        its balls with the likelier set, one that does not (no 4 or 7 in view, a lone
        ball) with both, as likely as each other."""
        costs = np.asarray(frame_costs, np.float64)
        if self.chosen >= 0:
            chosen: NDArray[np.float64] = np.eye(len(costs))[self.chosen]
            return chosen
        weights = np.exp(costs.min() - costs)
        out: NDArray[np.float64] = weights / weights.sum()
        return out


def palette_leaning(
    first: NDArray[np.float64], second: NDArray[np.float64], fit_floor: float = -4.5
) -> NDArray[np.float64]:
    """(N,) how much each ball favours the second palette over the first (nats, each ball
    within +-1), from its (N, 11) class scores under each.

    A ball's say is its best class's score under the second minus under the first, capped
    so no single ball (a detection that is no ball, a ball the light shades oddly) decides;
    a ball that fits no class of either palette well (best score below `fit_floor`: a
    hand, a shadow) has none.
    """
    best_first, best_second = (
        first.max(axis=1, initial=-np.inf),
        second.max(axis=1, initial=-np.inf),
    )
    fits = np.maximum(best_first, best_second) >= fit_floor
    leaning: NDArray[np.float64] = np.where(fits, np.clip(best_second - best_first, -1.0, 1.0), 0.0)
    return leaning
