"""How balls are told apart: the identifier's thresholds (`vision.identify.Identifier`)."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class IdentifierConfig:
    """How balls are told apart.

    Attributes:
        palette: "standard", "tv", or "auto" (per frame, the set that explains the balls best).
        palette_lights: the lights (linear gain, at most 1) each palette is also tried
            under (`vision.palette.Palette.named`): each frame is named with the set and
            light that explain its balls best (`palette_comparison`), so a dim table's balls
            are compared with dimmed colours. (1.0,): the usual light only, the default:
            chosen per frame, a dimmed set explains a frame's misreadings too (detection
            level, real detector, (1.0, 0.6)): three dim clips 0.917 -> 0.939, but fresh
            clips 0.948 -> 0.939 (f2_broadcast 0.972 -> 0.922, its cue ball read as the
            dimmed 10). A dim light is undone by the white balance instead
            (`vision.balance.MAX_BRIGHTEN`).
        colour_sigma: colour distance (Lab units) that costs one unit of log-likelihood;
            raising it flattens the probabilities.
        lightness_weight: weight of lightness against hue and chroma; shading changes
            lightness, so keep it below 1.
        white_chroma: largest chroma (Lab) of a pixel counted as white after white balance.
        white_lightness: smallest lightness (0..100) of a white pixel.
        white_relative: smallest lightness of a white pixel as a share of the ball's own
            brightest (95th percentile); shading darkens the far side of white balls.
        solid_white_max: most white a solid shows (its number circle facing the camera).
        stripe_white_min: least white a stripe shows when its caps face the camera.
        stripe_band_cost: what showing no white at all costs a stripe (squared sigmas): a
            stripe whose band faces the camera shows no white and looks like the solid of
            its colour, so missing white only makes the stripe less likely than that solid,
            never less likely than a ball of another colour.
        cue_white_min: least white the cue ball shows (its shaded rim is not white).
        exclusive: make each frame's probabilities consistent with one ball per class.
        smeared_area_ratio: pixel count over the disc area above which a ball is a
            motion-blur streak (a sharp ball's pixels fill at most 0.81 of the disc: they
            are taken within 0.9 radius); lowering it treats more round balls as smeared.
            Off (inf) by default: at 0.9 rendered blurred frames' identity rises (top
            0.65 -> 0.98..1.0, broadcast 0.65 -> 0.73, corner 0.65 -> 0.74..0.77), but in the
            live loop the streaks' flatter probabilities cost top_moving a call (3 -> 2 of
            3) and broadcast_scratch_red_tv detection recall 0.972 -> 0.918 (real detector).
        smeared_weight: how much a smeared ball's colour evidence counts against a sharp
            one's (its coverage and white share are fitted, so its colours say less);
            lowering it flattens smeared balls' probabilities.
        rim_mix_px: how far (px) a round ball's rim mixes with the cloth (optics, motion,
            compression): its colour may be the palette's mixed with the cloth by up to
            this over the radius (at most half), so a far, small ball's colour is not read
            as that of a ball nearer the cloth's. 0 (the default) turns it off: at 1.0
            fresh f1_corner's identity rose 95.7 -> 99.0 % (switches 13 -> 7) but
            broadcast_nudge lost all 3 calls and fresh s2_corner's switches rose 20 -> 36.
        palette_evidence: summed log-likelihood (nats, from sharp balls only) at which an
            automatic palette choice is made for the rest of the clip; a choice is undone
            only by as much evidence against it (hysteresis). Each ball's say is its cost
            in the frame's best one-per-class labelling under each set, capped
            (`vision.adapt.frame_leaning`); infinite: every frame chooses on its own balls.
            A set is the clip's, and its still frames tell it best: decided early (the rack
            before the break), blurred break frames cannot flip it. At 40 with the
            "likelihood" comparison, against infinite with "posterior" (live, real
            detector): fresh f1_corner (TV set) identity 95.6 -> 98.9 %, switches 20 -> 6,
            calls 1/4 -> 4/4; corner_lip_stay 99.3 -> 99.1 %, 14 -> 15, 2/3 both;
            broadcast_scratch_red_tv 99.8 -> 99.7 %, 4 -> 12, 3/3 both; top_lip_late_tv_grey
            100 %, 4 -> 5, 3/3 both; but fresh s2_corner's break went worse (95.0 -> 91.9 %,
            switches 20 -> 44, calls 0/3 both: the 8 read greenish and a cloth patch named
            6 at the break). With the old per-ball leaning a finite value locked
            s2_corner's standard set to the TV palette (switches 20 -> 54). Infinite by
            default: on 6 held-out rendered clips (real detector, at 588250b) 40 with
            "likelihood" named balls worse (mean identity 0.990 -> 0.976; h2_broadcast, a TV
            set at 0.8 light, 0.988 -> 0.892, and 0.892 with either change alone), for the
            same calls (12/20).
        palette_frame_cap: most evidence one frame adds (one odd frame never decides).
        palette_comparison: how a frame's palettes are compared before the clip decides:
            "likelihood", the unnormalised class scores of the best
            one-per-class labelling under each palette, each ball's cost capped at
            `palette_outlier_nats` (`vision.assignment.frame_fit_cost`), or "posterior" (the
            default), the same on each palette's per-ball probabilities. Posteriors favour
            the TV set (fewer rivals per ball: fresh s2_corner's standard set was named with the TV
            set on most frames, its far, dim 5 reading brown); likelihoods tell the sets
            apart on almost every frame: at detection level (real detector, truth-matched
            balls, `tests/benchmarks/eval_identify.py`) fresh clips 0.924 -> 0.936,
            s2_corner 0.830 -> 0.905, sample clips 0.985 -> 0.987, rendered scenes
            0.953 -> 0.962. Alone (no clip vote) it made s2_corner's break worse live
            (95.0 -> 92.8 %, switches 20 -> 26).
        palette_outlier_nats: what leaving a ball out costs in the "likelihood" comparison
            and in the clip's vote (`vision.adapt.frame_leaning`): a detection that fits no
            class of either set (a motion streak, a patch of cloth taken for a ball) counts
            at most this.
        unassigned_nats: how much worse than its own best class (nats of class score) a ball
            may be labelled by the frame's one-per-class assignment; a ball that would be
            forced further is left with its own probabilities instead
            (`vision.assignment.ruled_out`), so a false detection that looks like a ball (a
            white blob taken for the cue ball, a cloth patch for the green 6) does not
            push the real ball onto a number its colour rules out. Lowering it leaves more
            balls out (duplicate names for the tracker to settle); inf: every ball is
            forced, as before. Measured at detection level (real detector, truth-matched
            balls, `tests/benchmarks/eval_identify.py`, inf -> 12): fresh clips 0.924 ->
            0.948 (f2_broadcast 0.876 -> 0.972, f1_corner 0.929 -> 0.954), sample clips
            0.985 -> 0.987, 96 random rendered scenes 0.953 -> 0.954. Live (review, real
            detector, at 6db2e7b): sample clips 21/26 calls both, switches 76 -> 66
            (corner_offtable 22 -> 12), identity equal (lip_stay 99.32 -> 99.22 %,
            offtable 98.27 -> 98.37 %); fresh clips 14/20 calls both, f2_broadcast 97.7 ->
            98.1 % (switches 14 -> 9), f1_corner 98.8 -> 98.9 % (12 -> 6), s2_corner 90.0 ->
            93.6 % but switches 42 -> 60 (its 4, wrong for 650 frames, now right with
            flickers), s1, s3, f3 unchanged.
        blurred_cue_nats: what explaining a ball as the cue ball smeared over the cloth costs
            (nats; `vision.identify.blurred_cue_cost`): a struck cue ball moving a diameter
            or more per exposure shows few white pixels and a pale cloth colour, which the
            sharp cue ball's white share rules out (fresh s2_corner: the break's and a later
            stroke's cue ball read as the green 6 and the 8 at p(cue) < 1e-4, so the cue
            ball's track could not take its own detections and the first contacts were read
            as the 6 and the 8). Raising it needs a closer fit to the line from the cloth
            to white; inf turns it off. Live, real detector, daf80fd -> 2.0: fresh clips
            17/20 -> 18/20 calls (s2_corner 0/3 -> 1/3: both first contacts right, its
            pocket and off-table misses remain; its identity 0.960 -> 0.933, switches 47 ->
            69, most after the break in the far rack's 4 read as the 2 or 10); sample clips
            25/26 both, identity equal or better on all nine, switches 85 -> 78 over
            the other fourteen clips (corner_lip_stay 23 -> 18, top_combo10 10 -> 6,
            f1_corner 3 -> 5, the rest equal). A first version (least coverage 0.25,
            the identifier's own colour weights) also named a hand over grey cloth placing
            the cue ball the cue ball (a false stroke: fresh f2_broadcast 4/4 -> 2/4).
        light_prior_balls: learn the table's light from the balls the clip names surely
            (`vision.adapt.LightFit`): how many sure balls the palette as it is counts for;
            raising it needs more sure balls to move the palette; inf: off. 10 (the
            default, with `light_scales_sigma` and `chromatic_share` 0.2; was inf): live
            (review, real detector, at 1075021) on 13 pool clips (corner, broadcast, top;
            both sets; all four cloths; 30-60 fps; light 0.8-1.2) calls 18/28 -> 21/28,
            mean identity 0.976 -> 0.988, switches 219 -> 171 (none lost a call; a red
            corner clip 0.990 -> 0.988, switches 11 -> 19, a grey broadcast one 0.9996 ->
            0.9992, 4 -> 8, the rest equal or better); the
            nine samples 26/26 both, identity equal or better but corner_lip_stay 0.9982 ->
            0.9981 (switches 16 -> 22: one-frame flickers in the break's cluster, 13
            misnamed ball-frames against 14 with 0.35). Its earlier live losses were the
            learned map's duller colours weakening the evidence between balls, not
            misnamed detections: see `light_scales_sigma`.
            Rendered clips are seen duller than the palettes (learned chroma gains 0.66 to
            0.91, lightness gains 0.70 to 0.93 on six fresh clips). Detection level (real
            detector, truth-matched balls, `tests/benchmarks/eval_identify.py`, every
            10th/12th frame, off -> 10): six fresh clips 0.961 -> 0.978 (corner, standard
            set, blue cloth 0.907 -> 0.980: its 3 read as the 7), none worse by more than a
            ball; sample clips 0.9869 -> 0.9885, none worse by more than a ball. Live
            (review, real detector, at 58e4a90, off -> 50): fresh clips calls 10/12 -> 11/12
            (corner TV set at 0.8 light: identity 0.962 -> 0.974, switches 51 -> 41, its
            second call right), top TV set 0.965 -> 0.974, but the corner blue clip 0.962 ->
            0.928 (its 4's track takes the 2's number at the break either way and keeps
            it for 497 frames, not 204, though its detections are named better: 0.912 ->
            0.945 over frames 0-300), the rest within 0.001; sample clips 26/26 both,
            identity equal or better (switches 16 -> 18 on corner_lip_stay, 8 -> 6 and
            6 -> 4 on two others).
        light_sure_nats: how much better than its next class (nats of class score) a sharp
            ball's best class must be for the ball to teach the light; lowering it learns
            from more balls, and from more misnamed ones.
        chromatic_share: least share of a ball's non-white pixels that must be saturated
            (chroma 15 or more) for its colour to be theirs; below it the ball has no colour
            of its own (the cue ball, the 8) and its colour is that of all its non-white
            pixels. Raising it reads a dark ball whose saturated pixels are only its rim
            mixed with the cloth (the 8 on green read as the 6) by its body instead.
            Detection level (real detector, `tests/benchmarks/eval_identify.py`, 0.08 ->
            0.35): six fresh clips 0.9609 -> 0.9625, sample clips 0.9869 -> 0.9874 (0.5:
            0.9596 and 0.9866); with `light_prior_balls` 10, 0.9783 -> 0.9795 and 0.9885 ->
            0.9896. Live (review, real detector, at 58e4a90, 0.08 -> 0.35), fresh clips:
            mean identity 0.971 -> 0.982 (c5 corner green 0.956 -> 0.987, its rack's 8 no
            longer the 6; c6 top green 0.965 -> 0.993; c3 0.962 -> 0.968; c1 corner red
            0.963 -> 0.959), but calls 10/12 -> 9/12 (c1 1/2 -> 2/2; c5 2/2 -> 0/2, the
            break's first contact read as the 6, which the second call inherits), so 0.08
            stays until held-out clips say otherwise. Sample clips 26/26 both, identity up
            on six (broadcast_pushout 0.9932 -> 0.9975, switches 22 -> 20), corner_lip_stay
            0.9982 -> 0.9979 and its recall 0.971 -> 0.969. With `light_prior_balls` 50 as
            well, fresh: mean identity 0.981 (c1 0.986, c3 0.938), calls 9/12. 0.2 (the
            default, with the light learned; was 0.08): broadcast_pushout's racked 8,
            whose saturated pixels are the purple 4's beside it, is read by its body, not
            as the 4 (with the light and 0.08 that clip went 4/4 -> 0/4; with 0.35 a green
            corner clip's break 2/2 -> 0/2 as before; with 0.2 both keep every call).
            Detection level, 13 pool clips with the light learned: 0.9806 (0.08), 0.9803
            (0.2), 0.9795 (0.35).
        light_max_balls: sure balls after which the light is kept as learned (it is the
            table's, and learning costs a frame about a millisecond): the rack and the
            first seconds of play teach it. Raising it keeps learning longer.
        light_scales_sigma: with the light learned, divide colour distances by its chroma
            gain (`colour_sigma` times the gain, at least half): a dull table's map brings
            the palette's colours closer together (chroma gain 0.66 on a blue-cloth corner
            clip), which halved what a frame said between its 2 and 4, so the tracker's
            evidence against a swap at the break stayed under its margin (that clip's 4
            kept the 2's number 497 frames, not 204, with `light_prior_balls` 50; 0.962 ->
            0.781 identity and a call lost with 10). Scaled, a dull table's balls are told
            apart as surely as a bright one's, and more of them are sure enough to teach
            the light. False: the learned colours only. True by default; it acts only
            while `light_prior_balls` is finite. Live (review, real detector, at 1075021,
            light off -> `light_prior_balls` 10 with this): 13 pool clips (corner,
            broadcast, top; both sets; all cloths; 30-60 fps; light 0.8-1.2) calls 18/28 ->
            21/28, mean identity 0.976 -> 0.986, switches 219 -> 198 (blue-cloth corner
            0.962 -> 0.983; a corner blue 50 fps clip 0/2 -> 2/2, 0.923 -> 0.992; a red
            corner TV clip 1/2 -> 2/2 but 0.963 -> 0.948, its 7 and 8 swapping later;
            a red corner clip 0.990 -> 0.987, switches 11 -> 30 in the breaking cluster);
            sample clips 22/26 against 26/26: broadcast_pushout_others 4/4 -> 0/4 (its
            racked 8, tinted by the purple 4 beside it, read as the 4 once the map brings
            the 4 toward it: the break's pocketed 8 is missed), corner_lip_stay switches
            16 -> 22, the other seven equal or better. With `chromatic_share` 0.35 as
            well pushout is 4/4 again and lip_stay's switches 16, but a green corner
            clip's break 2/2 -> 0/2 (the break's first contact read as the 6).
    """

    palette: str = "auto"
    palette_lights: tuple[float, ...] = (1.0,)
    colour_sigma: float = 12.0
    lightness_weight: float = 0.4
    white_chroma: float = 18.0
    white_lightness: float = 40.0
    white_relative: float = 0.6
    solid_white_max: float = 0.16
    stripe_white_min: float = 0.3
    stripe_band_cost: float = 4.0
    cue_white_min: float = 0.7
    exclusive: bool = True
    smeared_area_ratio: float = math.inf
    rim_mix_px: float = 0.0
    smeared_weight: float = 0.5
    palette_evidence: float = math.inf
    palette_frame_cap: float = 4.0
    palette_comparison: str = "posterior"
    palette_outlier_nats: float = 4.0
    unassigned_nats: float = 12.0
    blurred_cue_nats: float = 2.0
    light_prior_balls: float = 10.0
    light_sure_nats: float = 6.0
    light_max_balls: int = 3000
    chromatic_share: float = 0.2
    light_scales_sigma: bool = True

    def __post_init__(self) -> None:
        if not self.palette_lights or not all(0.0 < x <= 1.0 for x in self.palette_lights):
            raise ValueError(
                f"IdentifierConfig.palette_lights must be lights in (0, 1], "
                f"not {self.palette_lights!r}"
            )
        if self.palette_comparison not in ("posterior", "likelihood"):
            raise ValueError(
                f"IdentifierConfig.palette_comparison must be 'posterior' or 'likelihood', "
                f"not {self.palette_comparison!r}"
            )
