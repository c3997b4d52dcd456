"""Tunables of the event detector, in physical units (mm, mm/s, s)."""

from __future__ import annotations

import math
from dataclasses import dataclass

GRAVITY_MM_S2 = 9810.0
"""Gravitational acceleration, mm/s²."""

NOSE_HEIGHT_FRACTION = 0.635
"""Height of the cushion nose above the bed, in ball diameters (WPA equipment
specifications: 62.5-64.5 % of the ball's height)."""

CUSHION_RESTITUTION = 0.9
"""Coefficient of restitution of a ball's speed along a cushion's normal (measured rebounds
of pool balls off cushions: about 0.9 at moderate speeds, less on hard hits)."""

STANDARD_BALL_DIAMETER_MM = 57.15
"""A pool ball's diameter (2 1/4 in)."""


def min_off_table_speed_mm_s(
    ball_diameter_mm: float = STANDARD_BALL_DIAMETER_MM,
    restitution: float = CUSHION_RESTITUTION,
) -> float:
    """The slowest approach along a cushion's normal that can carry a rolling ball over it.

    To leave the table the ball must rise until its bottom clears the cushion nose, a height
    h = `NOSE_HEIGHT_FRACTION` diameters: a vertical speed of at least sqrt(2 g h) (0.84 m/s
    for a pool ball). The cushion hands back ``restitution`` of the normal speed, so at most
    a share 1 - e² of the normal kinetic energy is left to lift the ball (and the nose,
    above the ball's centre, pushes it down rather than up): the normal speed must reach
    sqrt(2 g h / (1 - e²)), 1.94 m/s for a pool ball. Slower, the ball bounced back.

    Args:
        ball_diameter_mm: the ball's diameter, mm.
        restitution: the cushion's coefficient of restitution (0..1).

    Returns:
        The speed, mm/s.
    """
    if not 0.0 <= restitution < 1.0:
        raise ValueError(f"restitution must be in [0, 1), got {restitution}")
    lift = 2.0 * GRAVITY_MM_S2 * NOSE_HEIGHT_FRACTION * ball_diameter_mm
    return math.sqrt(lift / (1.0 - restitution**2))


@dataclass(frozen=True, slots=True)
class EventConfig:
    """Tunables of `EventDetector`, in physical units (mm, mm/s, s).

    Attributes:
        fit_window_s: span of the straight-line fits before and after a contact. Raising it
            averages more noise but blurs contacts that follow each other closely; events
            are reported about this much (plus one frame) late.
        start_distance_mm: a resting ball that moves this far from its rest position (in two
            sightings running; further when resting balls show more detector noise) has
            started moving. Raising it ignores more detector jitter but misses gentle kisses.
        start_min_speed_mm_s: a start slower than this is not reported (a ball reappearing
            where it was moved while hidden). Raising it ignores slower nudges.
        strike_min_speed_mm_s: the cue ball must leave at least this fast for a strike.
        disturb_min_rest_s: a ball must have been at rest this long before a start with
            nothing touching it counts as ``ball_disturbed`` (sooner, it is still creeping to
            a stop). Raising it misses more quick disturbances but calls fewer false ones.
        disturb_clearance_mm: a ball that starts with another moving ball this close was
            hit by it (a contact reported with low confidence), not disturbed. Raising it
            calls fewer false disturbances (fouls) but misses some real ones.
        rest_speed_mm_s: a ball whose speed, fitted over ``rest_window_s``, is below this is
            at rest. Raising it declares balls at rest sooner.
        rest_window_s: see ``rest_speed_mm_s``. Raising it averages more noise but waits
            longer before a ball is at rest (and the shot can end).
        ball_contact_tolerance_mm: added to one diameter for the largest centre distance of
            a ball-ball contact. Raising it accepts contacts seen through more noise, and
            more false contacts between near misses.
        cushion_tolerance_mm: added to one radius for the largest distance of the centre
            from a cushion line at a cushion contact. Raising it accepts jaw hits further in.
        kink_min_speed_change_mm_s: smallest velocity change of a moving ball that counts as
            a contact. Raising it ignores noise and spin but misses soft contacts.
        kink_relative_speed_change: the velocity change must also exceed this fraction of
            the speed. Raising it ignores curves of fast balls.
        position_noise_mm: noise of the tracked centres; the velocity change must also exceed
            ``kink_noise_sigmas`` times the noise this gives a change measured over the fit
            windows. Raising either ignores more noise and misses more soft contacts.
        kink_noise_sigmas: see ``position_noise_mm``.
        explain_min_cosine: how well a contact's direction must match the change (cosine).
            Raising it rejects more ambiguous contacts.
        simultaneous_contact_s: first contacts closer than this in time are reported as
            simultaneous (the camera cannot order them). Raising it reports more ties.
        settle_s: every ball must have been at rest this long for the shot to end. Raising
            it waits longer (slow drops stay in the shot).
        lip_wait_s: a ball at rest in a pocket mouth (on the lip) keeps the shot open this
            long after every ball stopped, so a late drop belongs to the shot (WPA 5-second
            rule, rules.md I-20). Raising it waits longer before such a shot ends.
        history_s: how much history is kept. Must cover the fit windows.
        rolling_deceleration_mm_s2: the weakest deceleration of a rolling ball on cloth
            (rolling resistance). A slow ball first seen displaced started at most as long
            ago as it takes to roll that far decelerating this gently; lowering it allows
            earlier start estimates for creeping balls.
        sliding_deceleration_mm_s2: the strongest deceleration of a ball on cloth (a ball
            sliding without rolling: friction coefficient about 0.2, up to 0.25 on slow
            cloth). A resting ball struck into a rail beside it reaches the rail when it could
            cover the gap slowing this hard; raising it infers fewer such cushion contacts.
        lost_found_s: a ball lost from sight is found again only when seen this long without
            a gap (and in at least three frames running); single sightings are often another
            ball given its name. Raising it needs more evidence to find a lost ball again.
        off_table_min_speed_mm_s: a ball lost and never seen again whose path met a cushion
            at least this fast (along the cushion's normal) may have left the table; slower,
            it bounced back and is only hidden (balls leave a table only on hard hits).
            Raising it infers fewer balls off the table. The default is
            `min_off_table_speed_mm_s` for a pool ball (the speed that can lift it over the
            cushion nose); set it from that function for other balls.
        lost_pocket_confidence: the confidence of a ``ball_pocket`` inferred for a ball lost
            heading into a pocket and never seen again (no drop was seen). Below the review
            threshold, a call resting on it is flagged.
        lost_off_table_confidence: the same for a ``ball_off_table`` inferred for a ball lost
            heading hard into a cushion.
        hidden_roll_max_s: the longest a ball lost from sight while rolling, with no fate
            its path tells, keeps the shot open after it was lost (while it would still
            roll at the gentlest deceleration): a ball a player's body hides may still be
            rolling. Raising it waits longer for such a ball before the shot ends (a ball
            lost for good into a pocket unseen delays the end as long).
        climbed_off_table: a ball the tracker gives up as pocketed whose last sighting lies
            on a cushion (`tracking.drops.DropExplainer._on_rail`: its centre beyond the
            touching line where the rail runs, not in a pocket's opening) left the table
            over that rail instead. Off by default until measured on held-out clips.
        jump_check: a start whose ball made its first step faster than it could then stop,
            and stopped or went back, with no resting ball or cushion beside it to stop it,
            is the detector's centre jumping (`tracking.jumps`), not a ball set moving: it
            is dismissed, so a ball rolling past is not taken for its toucher. Off by
            default: on six rendered clips (20 shots, real detector) it changed no call and
            delayed one real break contact (corner 7 ft 50 fps: the 7's start dismissed, its
            contact found 0.03 s later at confidence 0.5). Round 15, 15 clips (9 samples, 6
            fresh; real detector): calls 37/45, first contacts, cushion sets and break counts
            identical on and off; one contact 2 frames nearer the truth, one 9 frames later.
        blind_hits: a ball that left the table with no contact explaining its start was hit
            by a ball unseen around it (a cue ball lost in its own blur) when that ball's
            last sighting before and first after fit a path through the contact point
            (`tracking.blind_hits`): the contact is reported at confidence 0.6. Broadcast
            7 ft 30 fps grey (seed 1073), real detector with side_lip_radii: calls 1/4 ->
            4/4, first contact 3/4 -> 4/4 (cue->1 at 9.483 s, truth 9.487). On: 9 samples
            calls 26/26 either way (events differ on one); held-out set ten 12 -> 14 of 24
            (only that clip's twin changes).
        rail_graze_check: a ball rolling nearly along a rail whose motion across it turns
            from in to out at the rail, told over `tracking.rail_grazes.GRAZE_WINDOWS` fit
            windows either side (velocity noise 8 times lower than one window's), grazed
            that cushion (`tracking.rail_grazes`): one window's kink is within noise there.
            Off by default. A/B (events replayed on the same tracks): truth detector, 9
            fresh clips (seeds 2610-2617, 2621; top/broadcast/corner, 7-9 ft, 30-60 fps)
            cushion-after-contact sets 35/37 -> 37/37 shots, calls 35/37 -> 36/37; with
            1.5 mm centre noise (8 clips) 31/32 -> 32/32, calls 26/32 -> 27/32; real
            detector, 9 samples 26/26 calls and sets unchanged; fresh c30b unchanged.
        first_in_way: a kink explained by a ball the path reaches only after another one
            (a break's cue ball whose corner, a few ms late at 14 m/s, lies past the 1 in
            the rack) goes to the ball reached first, when its line of centres explains
            the change too (`tracking.kinks` `_first_in_way`). Off by default. A/B (same
            replays): 1.5 mm centre noise, 8 fresh clips: calls 26/32 -> 30/32, first
            contact 30/32 -> 31/32 (t2614 top 8 ft 50 fps break: the 9 -> the 1); real
            detector, 9 samples 26/26 unchanged, fresh c30b/c30t/c50c 7/13 unchanged.
        lip_wait_yields: a ball starting while the shot only waits out ``lip_wait_s`` (every ball at
            rest for ``settle_s``; the starting one not in a pocket's mouth) ends the shot where the
            table fell quiet, before its start is explained
            (`tracking.shot_end.ShotEnd._resolve_starts`): the next stroke must not be taken for a
            late contact of the old shot. Off by default: it matters with
            `DetectorConfig.side_lip_radii` (a ball seen resting in a side mouth holds the shot
            open), which is off (real footage lost with both on). A/B, real detector, both off ->
            both on (side_lip_radii 0.5): 9 samples calls 26/26, first contacts 26/26 either way,
            pocket events right/false/missed 19/1/1 -> 20/0/0; four fresh renders nobody tuned on
            (seeds 2000, 2002-2004: broadcast 9 ft 60 fps, top 8 ft 50, corner 9 ft 60, broadcast 8
            ft 30) calls 4/16 -> 7/16 (lip-stays no longer pocketed), first contacts 14/16 either
            way, shots with the right pocketed set 7/16 -> 10/16, pocket events 13/5/5 -> 14/4/4,
            but seed 2000's 7, dropped in a side mouth at the break, is removed a second time at a
            later shot's end (a false pot, no call lost). Seed 1074 (top 9 ft 50 fps, where this was
            found): side lips alone 0/4 calls, with this 1/4 (as with both off); its 6 stays on the
            lip into the next stroke and is then taken for dropped when the cue covers it (the
            tracker's held velocity: `tracking.bounce.bounce_off_cushions` clips the position, not
            the velocity).
    """

    fit_window_s: float = 0.08
    start_distance_mm: float = 8.0
    start_min_speed_mm_s: float = 30.0
    strike_min_speed_mm_s: float = 100.0
    disturb_min_rest_s: float = 0.5
    disturb_clearance_mm: float = 230.0
    rest_speed_mm_s: float = 30.0
    rest_window_s: float = 0.25
    ball_contact_tolerance_mm: float = 15.0
    cushion_tolerance_mm: float = 20.0
    kink_min_speed_change_mm_s: float = 100.0
    kink_relative_speed_change: float = 0.2
    position_noise_mm: float = 1.5
    kink_noise_sigmas: float = 4.0
    explain_min_cosine: float = 0.5
    simultaneous_contact_s: float = 0.004
    settle_s: float = 0.5
    lip_wait_s: float = 5.0
    history_s: float = 0.6
    rolling_deceleration_mm_s2: float = 50.0
    sliding_deceleration_mm_s2: float = 0.25 * GRAVITY_MM_S2
    lost_found_s: float = 0.05
    off_table_min_speed_mm_s: float = min_off_table_speed_mm_s()
    lost_pocket_confidence: float = 0.7
    lost_off_table_confidence: float = 0.5
    hidden_roll_max_s: float = 2.0
    climbed_off_table: bool = False
    jump_check: bool = False
    blind_hits: bool = True
    rail_graze_check: bool = False
    first_in_way: bool = False
    lip_wait_yields: bool = False
