"""The detector and identifier on third-party real footage in ../shared/footage (skipped when
that folder is absent, as on a user's machine).

Measured, not tuned: these numbers are the baseline a change must not lower. The labelled
overhead set has no calibration, so each image gets an uncalibrated view: the cloth region
found by colour and the ball radius from that image's own labelled boxes (what a
calibration would give). The labelled broadcast clips are calibrated automatically. The
measurements are tests/benchmarks/eval_real_footage.py's, which prints them as one table.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.benchmarks.eval_real_footage import BROADCAST, score_broadcast, score_fisheye
from tests.benchmarks.eval_real_review import ClipScore, evaluate
from vision.identify import Identifier, IdentifierConfig

FOOTAGE = Path(__file__).resolve().parents[2] / ".." / "shared" / "footage"
DATASET = FOOTAGE / "datasets" / "overhead-fisheye-balls"

pytestmark = [
    pytest.mark.footage,
    pytest.mark.skipif(not FOOTAGE.is_dir(), reason=f"real footage not present at {FOOTAGE}"),
]


@pytest.mark.skipif(not DATASET.is_dir(), reason="labelled overhead data set not present")
def test_detection_on_the_labelled_overhead_test_split() -> None:
    scores = score_fisheye("test")
    for name, one in scores.items():
        print(one.row(f"detect fisheye test {name}"))
    score = scores["all"]
    # Measured 2026-11-30: recall 0.584, precision 0.544 (was 0.59 / 0.52: cushion ghosts
    # gone). Small, blurred balls in tight racks and clusters merge into blobs, and the
    # cloth model does not follow the lamps' falloff; see the issue 4 report.
    # With crowded blobs explained ball by ball (vision/separate.py): recall 0.617,
    # precision 0.922 (the same commit's base: 0.586 / 0.545). With an uncalibrated
    # view's border band (cushion tops of the cloth's colour) as static background:
    # recall 0.619, precision 0.935. With a crowd ball beside a large unexplained piece of
    # its blob dropped (a hand, an arm; vision.separate): recall 0.613, precision 0.965.
    # Measured again through tests/benchmarks/eval_real_footage.py at 6db2e7b: recall 0.613,
    # precision 0.976; the cue ball found in 29 of 54 images and named in 24. With the
    # uncalibrated region closed over notches a ball wide (a ball against the cushion's
    # shadow, left out of the cloth by colour; vision.table_view): recall 0.704, precision
    # 0.952, the cue ball found in 39 and named in 36. Of the misses left (159), 112 are in
    # images the data set stretched (boxes more than 1.5 times as wide as high).
    # At 8809bf4 (a crowd ball must fill 90 % of its disc, vision.separate): recall 0.660,
    # precision 0.954. With balls of another hue than the cloth never taken for static
    # background (vision.cloth): recall 0.688, precision 0.954. At a2f5785 (a distance
    # peak left alone in a crowd kept): recall 0.704, precision 0.945; on the images the
    # data set did not stretch (395 balls): recall 0.830, precision 0.959. At 9b86bba (and
    # at 3bca641): recall 0.703, precision 0.945; unstretched 0.828 / 0.959; misses by cause
    # in the real engineer's report (stretched images, tight racks, a split cloth).
    assert score.recall >= 0.69
    assert score.precision >= 0.94
    assert scores["round"].recall >= 0.8
    assert scores["round"].precision >= 0.94


@pytest.mark.skipif(not BROADCAST.is_dir(), reason="labelled broadcast clips not present")
def test_detection_on_the_labelled_broadcast_frames() -> None:
    """Both televised clips calibrated automatically, their four labelled frames searched
    whole by the review's detector and by `tenball detect`'s."""
    scores = score_broadcast()
    for name, score in sorted(scores.items()):
        print(score.row(name))
    # Measured 2026-11-30 at 6db2e7b (both detectors alike): 54 labelled balls, recall 0.926,
    # precision 0.980, the cue ball found in 4/4 frames and named in 3/4. game1 (overhead)
    # finds all 30 (one false ball on the bridge hand; the cue ball, yellowed by the
    # broadcast's light, named the 6 in frame_first). game2 (angled) misses 4 of 24:
    # a ball behind the near cushion (both frames; only its top shows), a stripe against
    # the near cushion and a red ball against the far one. With balls of another hue than
    # the cloth never taken for static background (vision.cloth), the red ball is found in
    # both frames: recall 0.944 (52/54), precision 0.981. At 3bca641 and 9b86bba: recall
    # 0.963 (52/54), precision 0.981. Searching game2 (found with confidence 0.45-0.69) for a
    # lens (calibration.lens) takes a mild barrel one (confidence 0.96) but costs recall
    # 0.963 -> 0.926 and precision 0.981 -> 0.962, so such tables are not searched.
    for kind in ("review", "detect"):
        everything = scores[f"{kind} all"]
        assert everything.recall >= 0.94, kind
        assert everything.precision >= 0.95, kind
        assert everything.cues_found == everything.cues, kind
        assert everything.cues_named >= 3, kind


@pytest.mark.parametrize(
    ("folder", "minimum"), [("balls", 1.0), ("balls2", 0.8)], ids=["match1", "match2"]
)
def test_identification_of_broadcast_ball_crops(folder: str, minimum: float) -> None:
    """Crops of the cue ball and balls 1..9 from two televised matches, named as one frame
    (one ball per number). The second match's set has a purple 5 and a 9 whose stripe does
    not show in the crop, which no palette here describes."""
    pixels = []
    for ball in range(10):
        crop = cv2.imread(str(FOOTAGE / "ball-crops" / folder / f"{ball}.jpg"))
        assert crop is not None, f"{folder}/{ball}.jpg unreadable"
        height, width = crop.shape[:2]
        ys, xs = np.mgrid[:height, :width]
        disc = np.hypot(xs - (width - 1) / 2, ys - (height - 1) / 2) <= 0.4 * min(height, width)
        pixels.append(crop[disc])
    labels = np.argmax(Identifier(IdentifierConfig(palette="auto")).identify(pixels), axis=1)
    accuracy = float(np.mean(labels == np.arange(10)))
    print(f"{folder}: labels {labels.tolist()}, accuracy {accuracy:.2f}")
    assert accuracy >= minimum


TOP_DOWN = FOOTAGE / "top-down-real"


@pytest.mark.skipif(not TOP_DOWN.is_dir(), reason="top-down real clips not present")
def test_the_fixed_overhead_table_is_found_alike_in_every_clip() -> None:
    """Four clips of one fixed camera, a player's arm and cue in view: `tenball review`
    without a calibration file finds the table in each (calibration.video), and the corners
    agree between clips. Measured 2026-11-30 at 9b86bba: all four found in their first
    seconds, 2089-2174 mm measured from the balls (one clip 7ft, three 8ft: the table lies
    between the two standard sizes); the three 8ft clips' corners within 0.5 px of one
    another, the 7ft clip's up to 9.8 px off theirs (its cushion noses, lowered onto the
    cloth for a nearer camera, move 9.2 px against 4.7)."""
    from calibration.video import find_in_video

    corners, sizes = [], []
    for clip in sorted(TOP_DOWN.glob("*.mp4")):
        found = find_in_video(clip, None)
        assert found.attempts == 1, clip.name
        calibration = found.finding.calibration
        assert calibration.table.length_mm in (1981.0, 2235.0), clip.name
        sizes.append(calibration.table.length_mm)
        corners.append([calibration.corners_px[name] for name in sorted(calibration.corners_px)])
    spread = np.max(np.ptp(np.array(corners), axis=0))
    same = np.array(sizes) == max(set(sizes), key=sizes.count)
    alike = np.max(np.ptp(np.array(corners)[same], axis=0))
    print(f"corner spread between clips: {spread:.1f} px, at one size {alike:.1f} px")
    assert len(corners) == 4 and np.sum(same) >= 3
    assert alike <= 1.0
    assert spread <= 11.0


@pytest.mark.skipif(not BROADCAST.is_dir(), reason="labelled broadcast clips not present")
@pytest.mark.parametrize("clip", ["game1_clip1", "game2_clip1"])
def test_the_televised_tables_are_found_without_a_calibration_file(clip: str) -> None:
    """Both televised clips (overhead, angled) are found in their first seconds with their
    long sides told by their side pockets. Measured 2026-11-30 at 9b86bba: confidence 0.91 and
    0.45."""
    from calibration.video import find_in_video

    found = find_in_video(BROADCAST / clip / f"{clip}.mp4", None)
    assert found.attempts == 1
    assert found.finding.confidence >= 0.3
    assert any(note.startswith("side pockets") for note in found.finding.notes)


@pytest.fixture(scope="module")
def reviewed_real_clips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ClipScore]:
    """`tenball review` without a calibration file on the six labelled real clips, scored
    against our labels (tests/benchmarks/eval_real_review.py; about 20 s a clip)."""
    return evaluate(tmp_path_factory.mktemp("real-review"), modes=("found",))


@pytest.mark.slow
@pytest.mark.skipif(not TOP_DOWN.is_dir(), reason="top-down real clips not present")
def test_review_of_the_real_top_down_clips(reviewed_real_clips: dict[str, ClipScore]) -> None:
    """Four real top-down clips (one cue ball, or a cue ball and a red; arm and cue in
    view), reviewed end to end. Measured 2026-11-30 at daf80fd: 3 of 4 strokes found
    (simulation_vs_reality_1_0008_0011's missed: the cue's tip over the cue ball's spot on
    the stroke frame), their first contacts right 3/3; pockets right 2/3
    (simulation_vs_reality_1_0028_0032 adds a false pot: a ghost ball on the player's arm
    "drops" in the far side pocket); ball-frames found 241/252, cue ball named in 162/172.
    At c0167d2 (the tip read as the cue ball no longer hides the stroke): strokes 4/4, first
    contacts 4/4, pockets 3/4 (the arm's ghost pot stays), ball-frames 239/252."""
    for name, score in sorted(reviewed_real_clips.items()):
        print(score.row(name), *score.notes, sep="\n    ")
    top = ClipScore()
    for name, score in reviewed_real_clips.items():
        if "game" not in name and name != "found all":
            top.add(score)
    assert top.strokes == 4
    assert top.strokes_found >= 4
    assert top.extra_shots == 0
    assert top.contacts_right == top.strokes_found
    assert top.pots_right >= 3
    assert top.recall >= 0.93
    assert top.cue_frames_named >= 0.9 * top.cue_frames
    # Ghosts kept as balls on the frames whose labels hold every ball (false rows), measured
    # at a945c6b: 228 on 166 frames (gleitreibungskoeffizient 93, null_grad 94: corner
    # pockets' holes seen past the jaw line from above; 0008 17, 0028 24: holes, the
    # player's head shadow, the cue's tip). With the holes taken as background
    # (DetectorConfig.pocket_holes) 12-13, on by default since 0a649b1 stopped a ghost
    # wandering as the review begins from opening a shot.
    assert top.false_rows <= 40


@pytest.mark.slow
@pytest.mark.skipif(not BROADCAST.is_dir(), reason="labelled broadcast clips not present")
def test_review_of_the_televised_clips(reviewed_real_clips: dict[str, ClipScore]) -> None:
    """The two televised 8-ball clips (15 and 12 balls: more than the eleven of ten-ball)
    reviewed end to end. Measured 2026-11-30 at daf80fd: no shot in either (game1's cue ball
    never gets a track, its "cue" track sits on a white striped ball; game2's stroke is
    struck at frame 12 but the clip ends before the balls have rested long enough to end the
    shot, and an open shot is not written), no false shot; ball-frames found 33/54 (at most
    11 a frame can be tracked: 44/54). At c0167d2 a shot still open when the video ends is
    judged: game2's stroke is found with its first contact and pocket; ball-frames 32/54.
    Game2's frames 20-50 labelled too (every ball: the cue ball rolling, a player's cue in
    view), measured at 1075021: game2 64/108 (cue ball 9/9), no false row on its 7 complete
    frames; the misses are balls against the cushions of the slanted view (the two by the
    near right corner, half hidden behind the near cushion; one by the near rail; the far
    red) and a far ball kept "occluded"; game1 20/30."""
    televised = ClipScore()
    for name in ("found game1_clip1", "found game2_clip1"):
        televised.add(reviewed_real_clips[name])
    print(televised.row("televised"))
    assert televised.strokes == 2
    assert televised.strokes_found >= 1
    assert televised.extra_shots == 0
    assert televised.recall >= 0.55
    # No ghost on the cue or the bridge hand over game2's complete frames.
    assert televised.complete_frames == 7
    assert televised.false_rows <= 2
