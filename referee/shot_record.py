"""A shot's record and the segmenter's settings (`referee.shots.ShotSegmenter` makes the
records; `referee.shots` re-exports both)."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.break_contact import REASON
from referee.shot_facts import CUE, SIMULTANEOUS_CONTACT_S, FactsDict
from tracking.types import Event

UNACCOUNTED_CONFIDENCE = 0.5
"""How sure a shot's facts are when a ball lost in motion is neither seen nor known removed."""


@dataclass(frozen=True, slots=True)
class ShotConfig:
    """Tunables of `ShotSegmenter`, physical units.

    Attributes:
        moving_at_strike_speed_mm_s: a ball at least this fast when the cue ball is struck
            counts as moving (F9). Raising it ignores slower creeping balls.
        simultaneous_contact_s: first contacts closer than this in time are reported in
            `simultaneous_first_contact`. Raising it reports more ties (resolved for the
            shooter by the rules, I-07).
        simultaneous_contact_frames: first contacts closer than this many frame intervals
            are ties too: a contact's sub-frame time comes from fits to the frames around
            it, and two contacts between the same two frames are timed from the same few
            sightings, so the camera cannot order them. Measured error of a cue-ball
            contact's time against physics truth: with exact detections median 0.02,
            90th percentile 0.25-0.33 frame (79 contacts: 9 samples, four fresh renders);
            with the real detector median 0.16-0.20, 90th percentile 1.0-2.3 frames (83
            contacts: 9 samples, six fresh renders): a gap under half a frame is within the
            error of the difference of two such times. 0.5, A/B from 0 on the same tree: a fresh
            corner 9 ft 60 fps render (seed 1115) whose cue ball met the 1 and then the 6
            8 ms apart, timed 6 first by 4.8 ms (F2 called), 3/4 -> 4/4 calls with exact
            detections; 9 samples' calls and first contacts unchanged with both detectors
            (no other tie under half a frame among the 9 samples' and six fresh renders'
            first contacts). The tie halves the fact's confidence, so the call is flagged
            for a person to check.
        unsure_contact_confidence, unsure_contact_frames: a cue-ball contact with the lowest
            ball timed after a contact with another ball within this many frame intervals,
            either contact less sure than this confidence, is a tie too
            (`shot_facts.facts_with_confidence`): the camera cannot tell whether the lowest
            ball was hit first (resolved for the shooter, I-07, and flagged for a check).
            Measured error of a contact's time against truth by the events' confidence
            (real detector, 9 samples and six fresh renders): at 0.9-1.0 median 0.13-0.23,
            90th percentile 0.55-0.59 frame; at 0.6-0.8 median 0.2-0.6, 90th percentile
            2.3-3.8 frames. Only the order that decides the call is loosened (the lowest
            ball timed second): elsewhere it changes nothing. A/B from 0 frames: a fresh
            corner 9 ft 60 fps render (seed 1115) whose cue ball met the 1, then the 6 8 ms
            later, timed 6 first by 2.4 frames at confidence 0.6 (an F2 on a legal shot),
            3/4 -> 4/4 calls with the real detector, the call flagged for a check with the
            foul it spared; the 9 samples and the other five fresh renders hold no such pair
            (unchanged by construction). A true wrong-ball foul whose cue ball then meets the
            lowest ball within that time becomes a tie; none among these clips.
        rack_extent_mm: a shot is a break when all ten object balls lie within this distance
            of the foot spot at the strike. Raising it accepts looser racks.
        rack_min_balls: how many of the ten racked balls must be seen (the others hidden
            behind the rack from a low or corner camera, or missed by the detector), all
            within ``rack_extent_mm`` and no other object ball seen, for the shot to count as
            a break; all ten are then taken to be on the table. Lowering it recognises breaks
            seen worse, with more risk of calling a tight cluster a rack.
        moving_at_strike_window_s: a ball counts as moving at the strike only when it was
            that fast on every frame of this window before the strike, seconds: a rolling
            ball is, while one detection jump (a re-found ball's centre a few mm off) gives
            the filter a speed for a frame or two. Raising it ignores balls set moving just
            before the strike.
        history_s: how much track history is kept to look up the state at the strike.
        cut_hold_s: a shot cut short by the next strike (struck while its balls still
            rolled) is handed on this long after the strike, seconds: a ball that dropped
            or left the table just before the strike is reported late (the tracker coasts
            a lost ball before it gives it up, `TrackerConfig.pocket_confirm_s`), and
            belongs to the cut shot, not the next one. 0 hands it on at once.
        break_way_check: on a break, give the first cue-ball contact to the racked ball in
            the cue ball's way when the events' ball cannot have been hit first
            (`referee.break_contact.BreakWatch`: above all a blurred cue ball read as a ball
            of the cloth's hue right at the stroke). A/B, real detector, the break's first
            contact: 9 samples 9/9 either way (calls 26/26); 41 rendered breaks (30-60 fps,
            all three cameras, four cloths) 31/41 -> 38/41, none lost; of those, the 21
            rendered by other engineers, which nobody looked at for this, 17/21 -> 19/21.
            Held-out set eleven calls 13/24 -> 14/24.
        moving_needs_displacement: a ball counts as moving at the strike only when its
            centre also moved over the window (`ShotSegmenter._displaced_over`: as far as
            the moving speed carries a ball in that time, less two standard deviations of
            the centre noise), not only its filtered speed: the tracker's velocity of a ball
            resting on a side pocket's lip, its centre past the cushion line, grows without
            bound while its position is held (h81, top 7 ft 30 fps red, exact detections:
            the 7 on the lip taken for moving at the three strikes after the break, F9 each
            time). A/B, off -> on: h81 exact detections calls 1/4 -> 4/4; 9 samples 26/26,
            first contacts 26/26 either way with both detectors (real: 59 switches); six
            fresh renders nobody tuned on (h85, t1, t3, t4, seeds 1202, 1203), exact
            detections 22/23 calls either way, real detector (1202, t4) unchanged.
    """

    moving_at_strike_speed_mm_s: float = 100.0
    moving_at_strike_window_s: float = 0.1
    simultaneous_contact_s: float = SIMULTANEOUS_CONTACT_S
    simultaneous_contact_frames: float = 0.5
    unsure_contact_confidence: float = 0.85
    unsure_contact_frames: float = 2.5
    rack_extent_mm: float = 240.0
    rack_min_balls: int = 5
    history_s: float = 2.0
    cut_hold_s: float = 1.0
    break_way_check: bool = True
    moving_needs_displacement: bool = True


@dataclass(frozen=True, slots=True, eq=False)
class ShotRecord:
    """One shot, strike to shot end.

    Attributes:
        shot: 1-based shot number in the stream.
        frame_strike: frame of the strike; time_strike_s its time, s.
        frame_end: frame of the shot end; time_end_s its time, s.
        is_break: the shot was a break (full rack at the strike).
        balls_on_table_at_start: object balls (1..10) on the table at the strike.
        events: the shot's events, by time.
        facts: the rules.md §4 facts dict (see `facts_json`).
        fact_confidence: 0..1 per fact name.
        unaccounted: (ball, frame last seen) of each ball lost from sight while moving in
            the shot and never seen again, with no removal inferred: it may still be on the
            table, pocketed or off it.
        cut_short: why the shot ended when the video did with balls still moving (the
            end's reason, `EventDetector.finish`); None when it ended on its own.
    """

    shot: int
    frame_strike: int
    time_strike_s: float
    frame_end: int
    time_end_s: float
    is_break: bool
    balls_on_table_at_start: tuple[int, ...]
    events: tuple[Event, ...]
    facts: FactsDict = field(default_factory=dict)
    fact_confidence: dict[str, float] = field(default_factory=dict)
    unaccounted: tuple[tuple[int, int], ...] = ()
    cut_short: str | None = None

    @property
    def confidence(self) -> float:
        """The least sure fact's confidence (1.0 when there is none), lower when a ball is
        unaccounted for or the video ended with balls still moving."""
        lost = UNACCOUNTED_CONFIDENCE if self.unaccounted or self.cut_short else 1.0
        return min(lost, *self.fact_confidence.values())

    @property
    def uncertain(self) -> tuple[str, ...]:
        """What the facts cannot say, in words (the review shows them)."""
        lost = tuple(
            f"the {'cue ball' if ball == CUE else ball} was lost from sight while moving "
            f"(last seen on frame {frame}) and not seen again: it may have been pocketed or "
            "left the table"
            for ball, frame in self.unaccounted
        )
        return lost if self.cut_short is None else (*lost, self.cut_short)

    @property
    def corrected(self) -> tuple[str, ...]:
        """Facts put right against what the events said, in words (the break's first
        contact, `referee.break_contact`): the review shows them beside the call."""
        return tuple(e.reason for e in self.events if e.reason and e.reason.startswith(REASON))

    def facts_json(self) -> FactsDict:
        """A fresh copy of the facts dict in the rules.md §4 format."""
        return _copy_facts(self.facts)

    def to_json(self) -> FactsDict:
        """The shots.jsonl fields this stage knows (design.md §5); the pipeline adds the rest."""
        return {
            "shot": self.shot,
            "frame_strike": self.frame_strike,
            "frame_end": self.frame_end,
            "is_break": self.is_break,
            "facts": self.facts_json(),
            "confidence": round(self.confidence, 4),
        }


def _copy_facts(facts: FactsDict) -> FactsDict:
    out: FactsDict = {}
    for key, value in facts.items():
        if isinstance(value, list):
            out[key] = [dict(v) if isinstance(v, dict) else v for v in value]
        else:
            out[key] = value
    return out
