"""Adapting identification to a clip: which ball set (palette) is on the table.

Sets differ in a few balls (the standard set's purple 4 and maroon 7, a broadcast set's pink
4 and brown 7). Which palette explains the balls best is judged on sharp balls only (a
motion-blur streak's colour is mixed with the cloth and would pull toward whichever set has
a ball nearer the cloth) and summed over the clip: once the evidence is enough the choice is
kept, and undone only by as much evidence against it, so one odd frame never flips the
names of every 4 and 7.

The table's light (`LightFit`): how this table shows a set's colours (duller, darker, with a
cast the white balance left), learned from the balls a frame names beyond doubt (a rack's
ten, one per number, each sure once the others claim its rivals) and used for every ball.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.assignment import labelled_costs, labelling_margins

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


LIGHT_PARAMETERS = 5
"""The light map's parameters: lightness gain and offset, chroma gain, a and b offsets."""

_IDENTITY_MAP = np.array([1.0, 0.0, 1.0, 0.0, 0.0])
_LIMITS = (np.array([0.5, -30.0, 0.4, -20.0, -20.0]), np.array([1.5, 30.0, 1.5, 20.0, 20.0]))


def _design(palette_lab: NDArray[np.floating]) -> NDArray[np.float64]:
    """(3K, 5) rows of the light map's linear model for (K, 3) palette colours: seen L =
    gain_L * L + offset_L, seen a = gain_C * a + offset_a, seen b = gain_C * b + offset_b."""
    lab = np.asarray(palette_lab, np.float64)
    rows = np.zeros((len(lab), 3, LIGHT_PARAMETERS))
    rows[:, 0, 0], rows[:, 0, 1] = lab[:, 0], 1.0
    rows[:, 1, 2], rows[:, 1, 3] = lab[:, 1], 1.0
    rows[:, 2, 2], rows[:, 2, 4] = lab[:, 2], 1.0
    return rows.reshape(-1, LIGHT_PARAMETERS)


@dataclass(frozen=True, slots=True, eq=False)
class LightFit:
    """The table's light, learned from the balls a clip names surely: a map from a
    palette's Lab colours to the colours its balls show (after white balance).

    White balance undoes the light's colour and level as the balls' white shows them, but
    not how the light greys and darkens the colours themselves (a dim or harsh light, a
    camera's own colour response): a whole set's colours move together, so a map fitted on
    the balls named beyond doubt (a rack's, a near ball's) names the doubtful ones (a far,
    dim 5 against the 7) with the colours this table shows. The map is linear in L and in
    (a, b) with one chroma gain (5 parameters), least squares over the sure balls plus
    ``prior_balls`` pseudo-observations of the palette seen as it is, so a few sure balls
    move it little and it never follows one ball.

    Attributes:
        normal: (5, 5) the sure balls' summed normal matrix (Xᵀ X of `_design`).
        target: (5,) their summed Xᵀ y.
        balls: how many sure balls were seen.
    """

    normal: NDArray[np.float64]
    target: NDArray[np.float64]
    balls: int = 0

    @classmethod
    def empty(cls) -> LightFit:
        """No ball seen: the palette as it is."""
        return cls(np.zeros((LIGHT_PARAMETERS,) * 2), np.zeros(LIGHT_PARAMETERS))

    def updated(
        self, palette_lab: NDArray[np.floating], seen_lab: NDArray[np.floating]
    ) -> LightFit:
        """The fit with K more sure balls: their (K, 3) palette colours and the (K, 3) Lab
        colours they showed."""
        if len(palette_lab) == 0:
            return self
        rows = _design(palette_lab)
        seen = np.asarray(seen_lab, np.float64).reshape(-1)
        return LightFit(
            self.normal + rows.T @ rows, self.target + rows.T @ seen, self.balls + len(palette_lab)
        )

    def mapped(self, palette_lab: NDArray[np.float32], prior_balls: float) -> NDArray[np.float32]:
        """(11, 3) the palette's colours as this table shows them (the cue ball's row, its
        white, kept: white balance makes it white).

        Args:
            palette_lab: (11, 3) a palette's Lab colours (cue first).
            prior_balls: how many sure balls the palette as it is counts for (spread over
                its ten numbered colours); raising it needs more sure balls to move the map.
        """
        if self.balls == 0:
            return palette_lab
        rows = _design(palette_lab[1:])
        out = palette_lab.copy()
        out[1:] = (rows @ self.parameters(palette_lab, prior_balls)).reshape(-1, 3)
        return out

    def parameters(
        self, palette_lab: NDArray[np.float32], prior_balls: float
    ) -> NDArray[np.float64]:
        """(5,) the fitted map (lightness gain and offset, chroma gain, a and b offsets) for
        an (11, 3) palette, with `mapped`'s prior; the identity map when nothing is known."""
        rows = _design(palette_lab[1:])
        weight = prior_balls / len(rows) * 3.0
        normal = self.normal + weight * rows.T @ rows
        target = self.target + weight * rows.T @ (rows @ _IDENTITY_MAP)
        try:
            theta = np.linalg.solve(normal, target)
        except np.linalg.LinAlgError:
            return _IDENTITY_MAP.copy()
        result: NDArray[np.float64] = np.clip(theta, *_LIMITS)
        return result


def sure_balls(
    scores: NDArray[np.float64], usable: NDArray[np.bool_], sure_nats: float, outlier_nats: float
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The balls of (N, 11) class scores named beyond doubt, and their classes: of the
    ``usable`` (N,) ones (sharp, with a colour), those the frame's best one-per-class
    labelling names a number (not the cue ball, whose colour is its white) that any other
    labelling would cost ``sure_nats`` more (`vision.assignment.labelling_margins`)."""
    label, margin = labelling_margins(scores[usable], outlier_nats)
    sure = (margin >= sure_nats) & (label > 0)
    rows = np.flatnonzero(usable)[sure]
    return rows.astype(np.int64), label[sure]
