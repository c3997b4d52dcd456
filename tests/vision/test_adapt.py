"""The clip's palette vote: decided on enough evidence, kept through odd frames."""

from __future__ import annotations

import numpy as np

from vision.adapt import MIN_SHARP_BALLS, LightFit, PaletteVote, sure_balls
from vision.palette import Palette

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


def test_the_light_map_recovers_a_dull_tables_colours() -> None:
    """Balls seen duller and darker than the palette (lightness 0.8 L + 5, chroma 0.7):
    many sure balls fit the map, and every colour of the set follows it."""
    palette = Palette.named("standard").lab.astype(np.float64)
    seen = palette.copy()
    seen[:, 0] = 0.8 * palette[:, 0] + 5.0
    seen[:, 1:] *= 0.7
    balls = np.array([1, 2, 3, 5, 6, 8])  # the 4, 7, 9 and 10 never seen surely
    fit = LightFit.empty()
    for _ in range(50):
        fit = fit.updated(palette[balls], seen[balls])
    mapped = fit.mapped(palette.astype(np.float32), prior_balls=10.0)
    # 300 sure balls against 10 for the palette as it is: within a few percent of the map.
    assert np.allclose(mapped[1:], seen[1:], atol=1.5)
    assert np.array_equal(mapped[0], palette[0].astype(np.float32))  # the white kept


def test_a_few_sure_balls_move_the_light_little() -> None:
    palette = Palette.named("standard").lab
    assert LightFit.empty().mapped(palette, 10.0) is palette
    one = LightFit.empty().updated(palette[3:4], palette[3:4] * [1.0, 0.2, 0.2])
    moved = np.abs(one.mapped(palette, 50.0) - palette)[1:, 1:].max()
    alone = np.abs(one.mapped(palette, 0.5) - palette)[1:, 1:].max()
    assert moved < 0.25 * alone


def test_sure_balls_are_those_the_frame_names_beyond_doubt() -> None:
    scores = np.full((3, 11), -30.0)
    scores[0, [3, 7]] = [-2.0, -2.5]  # a doubtful red...
    scores[1, 7] = -0.5  # ...beside a sure 7
    scores[2, 0] = -0.1  # the cue ball teaches nothing of colours
    rows, classes = sure_balls(scores, np.ones(3, bool), 6.0, 12.0)
    assert rows.tolist() == [0, 1] and classes.tolist() == [3, 7]
    rows, _ = sure_balls(scores, np.array([True, False, True]), 6.0, 12.0)
    assert rows.tolist() == []  # without the 7 in view, the red is doubtful
