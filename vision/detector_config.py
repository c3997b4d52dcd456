"""Tunables of the classical ball detector (`vision.detector.BallDetector`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from vision.identify import IdentifierConfig
from vision.separate import MIN_SEPARATION


@dataclass(frozen=True, slots=True)
class DetectorConfig:
    """Tunables of the classical detector.

    Attributes:
        foreground_distance: colour distance from the cloth (8-bit units, see
            `vision.cloth.cloth_distance`) above which a pixel is foreground
            (at least `noise_factor` times the cloth's own noise); raising it drops faint,
            blurred or cloth-coloured balls, lowering it lets shadows in.
        noise_factor: multiple of the cloth's noise that is foreground.
        dark_ratio: brightness, as a share of the cloth's, below which a pixel of the cloth's
            colour is foreground (a black ball, a pocket); shadows are brighter than this.
            Raising it finds the black ball on dark cloth better and lets deep shadows in.
        shade_ratio: brightness, as a share of the cloth's along its colour, below which a
            pixel is shaded (a shadow, or a ball's side away from the light): a ball of the
            cloth's hue shows its lit side as foreground and its shaded side only as such
            shade, so the rim of a lit ball counts shaded pixels as filled
            (`vision.confidence`). Raising it counts more of a ball's softly lit side and of
            the shadows next to things.
        min_peak_ratio: smallest distance-transform peak, in ball radii, that can be a ball;
            raising it rejects more half-hidden and blurred balls and more chalk and cues.
        max_peak_ratio: largest such peak (a hand or an arm is wider than a ball).
        min_confidence: detections below it are dropped.
        min_free_ring: share of the ring around a ball that must be cloth or other balls.
        edge_gradient: lightness gradient (Lab L per pixel) that counts as a ball's outline;
            it finds balls of the cloth's own colour (a green 6 on green cloth) by their
            shaded rim. Raising it ignores cloth texture better and finds such balls worse.
        min_ring_votes: share of an outline's circumference that must vote for a centre
            before an outline with too little foreground inside becomes a candidate.
        seed_hints: the thorough pass over hints the fast pass left unexplained also tries
            each such hint as a candidate centre (`vision.find.find_seeded`): a ball of the
            cloth's hue leaving the rack (a red 3 on red cloth, a blue 2 on blue) shows
            mottled foreground that gives no distance-transform peak and too little outline,
            yet scores as a ball once placed over its lit and shaded sides. A seed is tried
            only clear of other balls and kept only near where it was seeded.
        hint_window_radii: half-size of the search window around each hint, in radii.
        surface_margin_mm: how far past the cushion noses the surface mask reaches.
        refine_iterations: centroid iterations for the sub-pixel centre.
        find_streaks: also look for balls smeared by motion blur (one ball wide, up to
            `max_streak_radii` long), centred at mid-exposure.
        max_streak_radii: longest motion-blur streak, in ball radii (the ball's diameter plus
            its travel during the exposure: a 9 m/s break shot filmed at 30 frames/s with a
            half-frame exposure travels about 5 radii); raising it accepts longer bands.
        fast_streaks: look for streaks in the fast pass over the hinted windows too (not only
            in full searches and the thorough pass for hints the fast pass left unexplained).
        whole_streaks: a blurred ball found after the round search (`vision.streaks.streaks`)
            may not lie along a side of its window that cuts through the picture (its
            pixels on one side running over 3 radii along its axis: the blob's shape is the
            window's); a ball leaving or crossing the window touches a side with its width
            and stays. Fresh clip t2 (corner view, cloth learned under a player's arm): a
            hint window in a corner pocket cut a "streak" out of the foreground cushion face
            on every frame, a ghost held 40 frames by the 1's track and then the cue ball's,
            and a phantom shot; with this on its shots are right (4 run shots for 4, was 5;
            call disagreements 14 -> 8 keys, all now from its break's first contact). On:
            the 9 samples keep 26/26 calls and first contacts, fresh clips t1 t3 t4 t5 t6
            keep their calls (13/24 with t2), first contacts and switches, and the real
            footage check is unchanged (found: strokes 5/6, pots 5/5, 328/390, 13 ghosts).
        duplicates_on_table: two detections nearer than one apparent radius in the image
            are one ball only if they are also nearer than a ball radius on the table
            (`vision.duplicates`): at the far end of a corner view touching balls' centres
            lie under one radius apart in pixels and one was dropped. Off by default: in
            live reviews (commit of the assoc engineer, round eleven) of five corner-view
            clips it took a fresh 8 ft blue 50 fps clip's identity switches 28 -> 16 and
            ball-frame recall 0.915 -> 0.951, but a fresh 9 ft green 30 fps clip lost its
            break call (the far rack's kept balls named differently: first contact the 6),
            1/2 -> 0/2; samples corner_offtable and corner_lip_stay unchanged.
        reuse_still_windows: with hints, keep the last result of a window whose pixels have
            not changed (balls at rest cost a comparison instead of a search).
        still_change_ratio: 3x3-averaged pixel difference, as a share of the foreground
            distance, above which a window's pixel has changed; raising it keeps results
            through larger changes (and misses sub-pixel moves of faint balls).
        still_changed_share: share of a window's pixels that may change while it counts as
            still; raising it tolerates flicker and noise, and misses more small moves.
        still_max_age_s: a kept result is searched again after this long anyway (slow
            changes of light); lowering it costs more searches.
        full_refresh_s: a full search looks only where the table changed since the last
            one, and at every cell at least this often; lowering it costs more.
        channel_edges: outlines are also read from the channel in which the cloth is
            brightest where it shows them better than grey (balls of the cloth's hue: a red 3
            or a maroon 7 on red cloth, a dark green 6 on green; `vision.shading`), in views
            from overhead only (at a slant, contact shadows show the same edges). Off by
            default: full searches gain (fresh s3_top recall 95.6 -> 99.7 %), but in the
            review's hinted windows it finds false balls (fresh f3_top ball-frame
            precision 0.94 -> 0.87, calls 2/3 -> 1/3).
        separate_crowds: foreground blobs larger than one ball (racks, clusters, a ball by
            an arm, a sleeve) are explained ball by ball from round outlines
            (`vision.separate`): a ball beside a large piece of its blob that no ball
            explains (a hand at the end of a sleeve) is dropped, blobs running off a
            calibrated table are left to the lone-ball search, and views whose touching balls
            overlap much (`crowd_min_separation`) are not split. Single images: real overhead
            fisheye test split, uncalibrated, precision 0.545 -> 0.965, recall 0.586 ->
            0.613. In reviews too since d9f69b8 (a ball smeared out of a crowd keeps its
            distance peak): at a slant a rack's touching balls merge into one blob, and
            unsplit its middle and back balls never get a track (a 1920x1080 broadcast 7 ft
            view: a green 6 on green cloth, a maroon 7 and the back 4 untracked until the
            4 dropped on the break, unseen). Real detector, calls right, off -> on: an
            unseen held-out set (six clips, 20 shots: broadcast and corner views at 30/50/60
            fps, 1280x720 to 1920x1080, players in view) 11 -> 15; the sample clips 26 -> 26
            (broadcast_nudge ball-frame recall 0.991 -> 0.974: three rack balls found only
            at the break; top_moving 6 identity switches, were 0); four fresh breaks of
            the crowds engineer 2 -> 3. Cost: +19-30 % review CPU on broadcast views,
            none on corner views (their crowds are not split: `crowd_min_separation`).
        crowd_smear_peaks: an unexplained piece of a crowded blob small enough to be a
            ball's motion smear (`vision.separate.SMEAR_DISCS`) keeps its distance peaks for
            the lone-ball search: on a 30 fps break the black 8 leaving the rack smeared into
            such a piece and was lost (broadcast_pushout, crowds on: calls 3/4 -> 4/4). Off
            for single images (`tenball detect`), where no track vets a detection: on real
            overhead club photos it took precision 0.945 -> 0.914 (hands and cues).
        crowd_min_separation: crowded blobs are split only where touching balls' centres
            lie at least this many radii apart in the image (`vision.separate.MIN_SEPARATION`;
            0: everywhere, as for single images, where corner views gain too).
        lip_shelf_radii: a ball's centre may lie this many ball radii past a corner
            pocket's jaw line (a ball hanging on the lip; `TableView.from_calibration`). At
            1.5 rather than 0 (real detector, rendered clips nobody tuned on): held-out set
            one 12/20 -> 13/20 calls (a cue ball resting in a corner's jaws no longer a
            scratch), set two 8/20 -> 10/20 (a lip-stay, a pocket missed); the tracker keeps a
            ball seen deep in the jaws as dropping, not hidden (`tracking.jaws.in_jaws`).
        pocket_holes: take the pockets' holes, where the learning frame shows them dark,
            as background (`TableView.from_calibration`): seen from above, a corner's round
            hole reaches past the jaw line and its edge was found as a ball in every frame.
            Real top-down clips (eval_real_review.py), off -> on: ghost rows 228 -> 12 (found
            calibration), 92 -> 13 (given); 15 rendered clips' reviews identical; one real
            first contact lost to the tracker (0008, found: 5/5 -> 4/5). On since round 15,
            once a ghost wandering as a review begins no longer opens a shot (0a649b1): real
            clips off -> on, found calibration strokes 5/6, contacts 4/5, pots 5/5 either way,
            ghost rows 211 -> 13, ball-frames 329 -> 324 of 390 (0008: a phantom on the
            projector's line holds the cue ball's track); given calibration pots 3/4 -> 4/4,
            ghost rows 67 -> 21; 9 samples and 6 fresh clips byte-identical.
        side_lip_radii: a ball's centre may lie this many ball radii past the cushion line in
            a side pocket's mouth (`TableView.from_calibration`; None: not at all, as before).
            A ball resting there (lip-stay, or hanging before a late drop) has its centre 3-7
            mm past the line: refused, it was never detected and the tracker coasted it into
            the pocket (top_lip_late_tv_grey's 10 called down 137 frames early). 0.5, A/B on
            one tree (real detector): 9 samples calls 26/26 either way, pockets right/false/
            missed 19/1/1 -> 20/0/0 (top_lip_late recall 0.978 -> 0.996); held-out set ten
            h74 (top 9 ft green 50 fps) 1/4 -> 0/4: the 6 resting in a side mouth after the
            break is seen and held the shot open 8 s, so the next stroke merged into it.
            With `EventConfig.lip_wait_yields` too (both on): samples 26/26 either way,
            pockets 19/1/1 -> 20/0/0, four fresh renders calls 4/16 -> 7/16, held-out set
            eleven unchanged (18/24 at 9d54196); but the real top-down clips (`eval_real_review.py`,
            found calibration) pots 5/5 -> 3/5 and ghost rows 13 -> 150 (144 at the side
            pockets: their holes read as balls in the mouth, and dropped twice). Off.
        centre_inset_radii: a ball's centre lies at least this many ball radii inside the
            cushion noses (`TableView.from_calibration`; one radius for a ball frozen to a
            cushion, the rest room for calibration error). Wider, a detection centred on a
            cushion (a player's shadow on a real top-down clip's rail, named the 8 at frame
            0, opened a false shot and swallowed the stroke with pocket_holes on) is refused;
            0.75 costs sample calls on angled views (corner_offtable 3/3 -> 0/3), so 0.5.
        fit_lit_arcs: place each round ball by a circle of its known radius fitted to
            where its foreground ends on clean cloth (`vision.rim`), where enough of its
            outline shows that way and its rim is not foreground all round (`find.WHOLE_RIM`);
            off, the foreground's centroid (pulled toward the light or into the ball's shadow
            on balls whose shaded side matches the cloth's shade). Off by default: it halves
            the centre error on angled views and lifts a dim noisy 30 fps render's recall
            (0.847 -> 0.948 open loop), but it costs some 20-30 % more detector CPU and the
            tracker does not yet take its centres well: in live reviews it lost calls on
            sample corner_offtable (3/3 -> 1/3) and fresh f2_broadcast (4/4 -> 0/4) and
            s2_corner (2/3 -> 1/3), and won none on a held-out set (12/20 on and off).
            Measured again at b7755d5 (live, off -> on): samples 26/26 -> 24/26, all of it on
            corner_offtable (median error 8.10 -> 3.19 mm, 1.02 -> 0.54 px; the other eight
            keep their calls and move under 0.3 mm). Its shot 1: the far rack at the break
            (balls 6.5 px in radius) lets every ball jump, and one misnamed ball rotates three
            tracks' numbers; on, the fit names the rack's 5 right (off it reads as a 3), so the
            rotation lands the 7's number on the 3 and the 7's drop is lost (off, the same
            rotation lands a wrong number on the right ball by luck; the association's
            near_identity_error_rate = 0.1 mends it). Its shot 3: the cue ball at 8-9 m/s
            reaching the 2 at the far end (radius 5.6 px, touching balls 0.8 radii apart in
            the picture) is placed 2-4 px into the 2 or dropped as its duplicate, and the
            contact is missed. Seven fresh clips (seeds 131-366, all three cameras, 30/50/60
            fps, four cloths): calls 10/21 -> 10/21 (b1 broadcast grey 50 fps 2/3 -> 3/3, c3
            corner grey 7ft 2/3 -> 1/3: a far-end break drop missed), median error b1 4.83 ->
            2.58 mm, c3 6.27 -> 2.77, c2 corner blue 30 fps 4.29 -> 3.73, c1 corner red 4.60
            -> 4.41, broadcast green and both top views within 0.1 mm; identity b1 0.956 ->
            0.997, c2 0.794 -> 0.878, c3 0.951 -> 0.996, c1 0.997 -> 0.879.
        smooth_shading: a half-lit ball of the cloth's hue moves from its lit side's centre
            toward where its lit and shaded sides place it by a weight that passes from 0
            to 1 over a band of rim shares (`vision.confidence.shading_weight`) instead of
            switching at `confidence.LIT_RIM`, `find.HALF_LIT_RIM` and `find.LIT_WHOLE`: a
            resting ball whose rim shares cross one of them with the sensor's noise no
            longer jumps a fraction of a radius from frame to frame. Off: with the outline
            fit's bias (d6b6b16) the 9 samples keep 26/26 calls either way (switches 63 ->
            59), but a held-out set of 6 clips goes 13 -> 11 of 24 calls (a corner 8 ft grey
            60 fps clip 3 -> 1: a break's side-pocket drop and a lip-late drop lost).
        identifier: identification settings.
        seed_min_hued: least share of a seeded ball's disc (`seed_hints`; read on a circle
            of `find.SEED_HUE_RADII`) that must be of the cloth's hue or its shade (the
            region's `hued` map); 0: any. Seeds exist for balls of the cloth's hue, whose
            discs show it nearly all round (rendered samples: every kept seeded ball 0.72 or
            more); a seed on a bridge hand over the ball the tracker follows shows none, yet
            scored 0.61 as a ball and held the rolling 1's track on the hand for 10 frames
            (held-out h76, broadcast 9 ft 60 fps: shot 3's "ball moving at strike" missed).
            0 -> 0.3 (real detector, live reviews): h76 shot 3 now reads the foul F9 (its
            call still differs, by the next shooter of a break read wrong before it); the 9
            samples byte-identical (26/26 calls and contacts, pots 19/1/1, 59 switches);
            four fresh clips with cue and arm, three with players (broadcast 8 ft red 50
            fps, corner 7 ft green 30 fps, broadcast 9 ft grey 60 fps, top 8 ft blue 60 fps)
            calls 7/14, contacts 12/14 and switches 56 either way (two clips' tracks move).
    """

    foreground_distance: float = 16.0
    noise_factor: float = 5.0
    dark_ratio: float = 0.35
    shade_ratio: float = 0.8
    min_peak_ratio: float = 0.55
    max_peak_ratio: float = 1.45
    min_confidence: float = 0.5
    min_free_ring: float = 0.55
    edge_gradient: float = 2.5
    min_ring_votes: float = 0.15
    seed_hints: bool = True
    duplicates_on_table: bool = False
    hint_window_radii: float = 2.5
    surface_margin_mm: float = 20.0
    refine_iterations: int = 3
    fit_lit_arcs: bool = False
    find_streaks: bool = True
    max_streak_radii: float = 10.0
    fast_streaks: bool = False
    whole_streaks: bool = True
    reuse_still_windows: bool = True
    still_change_ratio: float = 0.5
    still_changed_share: float = 0.002
    still_max_age_s: float = 1.0
    full_refresh_s: float = 2.0
    channel_edges: bool = False
    separate_crowds: bool = True
    crowd_min_separation: float = MIN_SEPARATION
    crowd_smear_peaks: bool = True
    lip_shelf_radii: float = 1.5
    pocket_holes: bool = True
    centre_inset_radii: float = 0.5
    side_lip_radii: float | None = None
    smooth_shading: bool = False
    identifier: IdentifierConfig = field(default_factory=IdentifierConfig)
    seed_min_hued: float = 0.3
