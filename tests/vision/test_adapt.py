"""The clip's palette vote: decided on enough evidence, kept through odd frames."""

from __future__ import annotations

import numpy as np

from vision.adapt import MIN_SHARP_BALLS, PaletteVote

NEEDED, CAP = 12.0, 4.0


def vote_after(frames: list[np.ndarray], vote: PaletteVote | None = None) -> PaletteVote:
    vote = vote or PaletteVote()
    for leaning in frames:
        vote = vote.updated(leaning, NEEDED, CAP)
    return vote


def test_one_odd_frame_never_decides() -> None:
    vote = vote_after([np.full(11, 1.0)])
    assert vote.chosen == -1 and vote.evidence == CAP


def test_consistent_frames_decide_and_the_choice_survives_odd_frames() -> None:
    vote = vote_after([np.full(11, 1.0)] * 3)
    assert vote.chosen == 1
    vote = vote_after([np.full(11, -1.0)] * 3, vote)  # a few frames against it
    assert vote.chosen == 1
    assert vote.choice(np.array([0.0, 9.0])) == 1  # the frame's own preference is ignored


def test_undoing_a_choice_takes_as_much_evidence_as_making_it() -> None:
    vote = vote_after([np.full(11, 1.0)] * 20)
    assert vote.evidence == 2 * NEEDED
    needed = int(np.ceil(3 * NEEDED / CAP))
    assert vote_after([np.full(11, -1.0)] * (needed - 1), vote).chosen == 1
    assert vote_after([np.full(11, -1.0)] * needed, vote).chosen == 0


def test_frames_with_too_few_balls_add_nothing() -> None:
    vote = vote_after([np.full(MIN_SHARP_BALLS - 1, 1.0)] * 10)
    assert vote == PaletteVote()
    assert vote.choice(np.array([5.0, 2.0])) == 1  # undecided: the frame's likelier palette
