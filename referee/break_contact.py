"""The break's first ball from where the balls stood: a check on the events' answer.

On the break the cue ball crosses the table at up to 10 m/s. It is often lost in its own blur
from the stroke until it has hit the rack, and its first contact is then inferred from how
the racked balls start. Two faults make that inference name the wrong ball, and with it call
a foul on a legal break (Casse 1) that every later call of the rack inherits:

- the blurred cue ball, leaving its spot, is read as another ball (a faint white streak on
  green cloth reads as the green 6); that "ball" is then seen in the rack and seems to have
  travelled there, so the contact goes to it;
- a racked ball whose centre is off by most of a diameter (a ball of the cloth's own hue, at
  the far end of a low view) seems to lie in the cue ball's way, beside the ball really hit.

What the events got wrong the standing rack gets right: the cue ball comes from where it
rested at the stroke along a straight line, and the first racked ball on that line is the
first ball hit. `BreakWatch` records, at the strike, the cue ball's spot and the places of the
balls standing in the rack, then the cue ball's sightings on its way in. `BreakWatch.checked`
gives the shot's events back with the first cue-ball contact moved to the ball in the way
when the events' ball cannot have been hit first:

- it was seen beside the cue ball at the strike, or first seen on the cue ball's way sooner
  after the strike than the cue ball could have reached the rack (the blurred cue ball read
  as it);
- or, with the cue ball's way known from two sightings on one line before it reached the
  rack, that ball lay more than a diameter (plus `REACH_SLACK` of one) off the way, or the ball
  in the way is met more than a diameter before it.

Without two such sightings the way is taken to the nearest racked ball (a break aims at the
apex), and only the first fault is corrected. A corrected contact keeps at most `CONFIDENCE`, so
the call still shows for review. A cue ball that met a cushion before its first contact did
not come in straight, and is left alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from referee.shot_facts import CUE, cue_hit_ball, is_cue_hit
from tracking.geometry import segment_point_distance_mm
from tracking.types import Event, EventKind, TrackSet, TrackStatus

RACK_MIN_BALLS = 3
"""A rack stands at the strike when at least this many object balls are seen within the rack's
extent of the foot spot and at most one elsewhere: a far rack seen from a corner shows only its
front balls, and a ball seen elsewhere may be the cue ball's blur."""

BLUR_REACH = 3.0
"""A ball seen away from the rack is taken for the cue ball's blur only within this many
diameters of the cue ball's spot (at the strike) or of its way to the rack (just after)."""

APPROACH_S = 0.5
"""How long after the strike a sighting of the cue ball may give its way into the rack."""

CUE_TOP_SPEED_MM_S = 12_000.0
"""The fastest break: a racked ball seen away from the rack sooner after the strike than the
cue ball could have reached the rack at this speed was not sent there by it."""

CONTACT_RANGE = 1.5
"""A cue-ball sighting within this many diameters of a racked ball is at (or just past) its
first contact: the last one that can give the way in."""

REACH_SLACK = 0.5
"""A racked ball further off the cue ball's way than (1 + this) diameters cannot have been hit
by it: one diameter for the contact, the rest for the centre errors of a far, dim rack."""

CONFIDENCE = 0.6
"""The most a corrected first contact is trusted: it rests on geometry, not on a seen hit."""

REASON = "the break's first contact"
"""How the reason of a corrected contact begins (`referee.shots.ShotRecord.corrected` finds
it there, for the report)."""


def _rack_standing(
    tracks: TrackSet, table: TableSpec, extent_mm: float
) -> tuple[NDArray[np.float64], dict[int, NDArray[np.float64]], set[int]] | None:
    """(cue ball spot, {ball: place} of the racked balls, object balls seen beside the cue
    ball) when a rack stands at a break (`RACK_MIN_BALLS`, the cue ball behind the head
    string); else None."""
    in_play = (tracks.status == TrackStatus.ON_TABLE) | (tracks.status == TrackStatus.OCCLUDED)
    known = in_play & np.isfinite(tracks.xy_mm[:, 0])
    cue = np.flatnonzero(known & (tracks.ball == CUE))
    if not len(cue):
        return None
    spot = tracks.xy_mm[cue[0]].astype(np.float64)
    if spot[0] > table.head_string_x_mm + table.ball_radius_mm:
        return None
    foot = np.asarray(table.foot_spot_mm, np.float64)
    rack: dict[int, NDArray[np.float64]] = {}
    elsewhere: dict[int, NDArray[np.float64]] = {}
    for ball, xy, ok in zip(tracks.ball, tracks.xy_mm, known, strict=True):
        if not ok or ball == CUE:
            continue
        if float(np.linalg.norm(xy - foot)) <= extent_mm:
            rack[int(ball)] = xy.astype(np.float64)
        else:
            elsewhere[int(ball)] = xy
    if len(rack) < RACK_MIN_BALLS or len(elsewhere) > 1:
        return None
    reach = BLUR_REACH * table.ball_diameter_mm
    blur = {b for b, xy in elsewhere.items() if float(np.linalg.norm(xy - spot)) <= reach}
    return spot, rack, blur


@dataclass(slots=True)
class BreakWatch:
    """The standing rack and the cue ball's way into it, for one break.

    Make it with `BreakWatch.at_strike`; feed it each frame's tracks with `see`.

    Attributes:
        strike: the break's strike.
        spot: where the cue ball rested at the strike, table mm.
        rack: the racked balls' places at the strike, table mm.
        blur: object balls seen where the blurred cue ball was (`BLUR_REACH`).
        foot: the foot spot; extent_mm: the rack's reach from it, mm.
        diameter_mm: the balls' diameter.
        sightings: the cue ball's centres seen since the strike (`APPROACH_S`), in order.
    """

    strike: Event
    spot: NDArray[np.float64]
    rack: dict[int, NDArray[np.float64]]
    blur: set[int]
    foot: NDArray[np.float64]
    extent_mm: float
    diameter_mm: float
    sightings: list[NDArray[np.float64]] = field(default_factory=list)

    @classmethod
    def at_strike(
        cls, strike: Event, tracks: TrackSet, table: TableSpec, extent_mm: float
    ) -> BreakWatch | None:
        """A watch when ``tracks`` (the frame before the strike) show a standing rack and the
        cue ball behind the head string; None otherwise."""
        standing = _rack_standing(tracks, table, extent_mm)
        if standing is None:
            return None
        foot = np.asarray(table.foot_spot_mm, np.float64)
        return cls(strike, *standing, foot, extent_mm, table.ball_diameter_mm)

    def see(self, tracks: TrackSet) -> None:
        """Take one frame's tracks: a sighting of the cue ball on its way to the rack, and
        object balls first seen away from the rack before the cue ball could reach it."""
        if not self.strike.time_s < tracks.time_s <= self.strike.time_s + APPROACH_S:
            return
        self._note_strays(tracks)
        row = np.flatnonzero((tracks.ball == CUE) & (tracks.status == TrackStatus.ON_TABLE))
        if not len(row):
            return
        measured = tracks.measured_xy_mm
        xy = tracks.xy_mm[row[0]] if measured is None else measured[row[0]]
        xy = xy if np.isfinite(xy[0]) else tracks.xy_mm[row[0]]
        if np.isfinite(xy[0]):
            self.sightings.append(xy.astype(np.float64))

    def _note_strays(self, tracks: TrackSet) -> None:
        """Object balls seen since the strike on the cue ball's way, away from the rack, before
        the cue ball could have got there (`CUE_TOP_SPEED_MM_S`): the cue ball's blur."""
        places = np.array(list(self.rack.values()))
        gaps = np.linalg.norm(places - self.spot, axis=1)
        soonest_s = (float(gaps.min()) - self.diameter_mm) / CUE_TOP_SPEED_MM_S
        if tracks.time_s - self.strike.time_s > soonest_s:
            return
        nearest = places[int(np.argmin(gaps))]
        reach = BLUR_REACH * self.diameter_mm
        seen = tracks.status == TrackStatus.ON_TABLE
        for ball, xy in zip(tracks.ball[seen], tracks.xy_mm[seen], strict=True):
            if ball == CUE or int(ball) in self.rack:
                continue
            away = float(np.linalg.norm(xy - self.foot)) > self.extent_mm
            on_way = segment_point_distance_mm(self.spot[None], nearest[None], xy[None])
            if away and float(on_way[0, 0]) <= reach:
                self.blur.add(int(ball))

    def _way(self) -> NDArray[np.float64] | None:
        """Unit direction of the cue ball from its spot, from its sightings before it met the
        rack (None when it was not seen at least twice on one line on its way in).

        A sighting counts only when its way meets a racked ball (within a diameter of its
        centre) no nearer than the sighting itself, and a single one is not enough: a cue ball
        seen first just after it glanced off the rack (a frame later it is two diameters
        aside) gives a way that still meets the rack, beside the ball it hit.
        """
        places = np.array(list(self.rack.values()))
        on_way: list[NDArray[np.float64]] = []
        furthest = 0.0
        for xy in self.sightings:
            step = xy - self.spot
            length = float(np.linalg.norm(step))
            if length < furthest:
                break  # coming back: after its first contact
            furthest = length
            if length < self.diameter_mm:
                continue
            meets = [m for m in self._meets(step / length).values() if m[0] <= self.diameter_mm]
            if not meets or min(m[1] for m in meets) < length - 0.5 * self.diameter_mm:
                break  # a way past the rack, or past its contact: after the contact
            on_way.append(xy)
            if float(np.linalg.norm(places - xy, axis=1).min()) < CONTACT_RANGE * self.diameter_mm:
                break  # at the rack: what follows may have bounced off it
        if len(on_way) < 2:
            return None
        step = on_way[-1] - self.spot
        way = step / float(np.linalg.norm(step))
        aside = [abs(float(d[0] * way[1] - d[1] * way[0])) for d in (p - self.spot for p in on_way)]
        return way if max(aside) <= 0.5 * self.diameter_mm else None

    def _meets(self, way: NDArray[np.float64]) -> dict[int, tuple[float, float]]:
        """{ball: (distance off the way, mm; distance along it to the contact, mm)}."""
        out = {}
        for ball, xy in self.rack.items():
            rel = xy - self.spot
            along = float(rel @ way)
            off = abs(float(rel[0] * way[1] - rel[1] * way[0]))
            reach = along - float(np.sqrt(max(self.diameter_mm**2 - off**2, 0.0)))
            out[ball] = (off, reach)
        return out

    def first_in_way(self, hit: int) -> tuple[int, str] | None:
        """(the ball the cue ball met first, why) when ``hit`` cannot have been hit first;
        None when ``hit`` stands."""
        way = self._way()
        known_way = way is not None
        if way is None:
            nearest = min(self.rack.values(), key=lambda xy: float(np.linalg.norm(xy - self.spot)))
            way = (nearest - self.spot) / max(float(np.linalg.norm(nearest - self.spot)), 1e-9)
        meets = self._meets(way)
        # A sighted way meets a racked ball (`_way`); the way to the nearest one meets it.
        reachable = {b: m for b, m in meets.items() if m[0] <= self.diameter_mm}
        if not reachable:
            return None
        first = min(reachable, key=lambda b: reachable[b][1])
        if first == hit:
            return None
        if hit in self.blur:
            return first, f"the {hit} was seen on the cue ball's way, not in the rack (its blur)"
        if not known_way or hit not in self.rack:
            return None
        off, reach = meets[hit]
        if off > (1.0 + REACH_SLACK) * self.diameter_mm:
            return first, f"the {hit} lay {off:.0f} mm off the cue ball's way into the rack"
        if reachable[first][1] + self.diameter_mm < reach:
            return first, f"the {first} stood in the cue ball's way before the {hit}"
        return None

    def checked(self, events: Sequence[Event]) -> list[Event]:
        """``events`` with the first cue-ball contact given to the ball in the way when the
        events' ball cannot have been hit first (see the module docstring)."""
        out = list(events)
        hits = [i for i, e in enumerate(out) if is_cue_hit(e)]
        if not hits:
            return out
        index = min(hits, key=lambda i: out[i].time_s)
        event = out[index]
        if any(
            e.kind == EventKind.BALL_CUSHION and e.balls[:1] == (CUE,) and e.time_s < event.time_s
            for e in out
        ):
            return out  # a cushion first: the way in was not straight
        found = self.first_in_way(cue_hit_ball(event))
        if found is None:
            return out
        ball, why = found
        out[index] = replace(
            event,
            balls=(CUE, ball),
            confidence=min(event.confidence, CONFIDENCE),
            reason=f"{REASON} is taken to be the {ball}, the first ball in the cue ball's "
            f"way: {why}",
        )
        return out
