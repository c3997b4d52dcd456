"""The declarations file (`--declarations FILE`, JSONL; format in docs/architecture.md).

What players and the referee declared: called ball and pocket, push-out, option choices,
fouls a person saw, warnings, the break announcement of the 10. Each line is keyed by the
shot number (1-based, in the order strikes happen) or by `time_s` (the next strike at or
after that time). A review without a file still makes every call; the assumptions it makes
instead are returned as sentences (`assume_call`) so the report can state them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration.table import Pocket
from referee.rules.shot import RefereeFoul

PLAYERS = ("A", "B")
POCKETS = tuple(str(p) for p in Pocket)
REFEREE_FOULS = tuple(str(f) for f in RefereeFoul)
TYPES = (
    "match",
    "break_announce_10",
    "call",
    "push_out",
    "option_choice",
    "referee_foul",
    "warning",
    "safety",
)


class DeclarationsError(ValueError):
    """A line of the declarations file is malformed; the message names the line and field."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One declaration line: its type, key (shot or time) and fields, with its line number."""

    type: str
    shot: int | None
    time_s: float | None
    data: dict[str, Any]
    line: int


@dataclass(frozen=True, slots=True)
class ShotDeclarations:
    """What was declared for one shot.

    Attributes:
        declarations: the rules.md §4 `declarations` object (call, push_out, safety_intended,
            break_announce_10, break_announce_10_pocket).
        referee_fouls: rules.md §4 referee foul names seen on this shot.
        warnings: players warned before this shot.
        option_choice: "shoot" or "hand_back", chosen after this shot's call; None if none.
    """

    declarations: dict[str, Any] = field(default_factory=dict)
    referee_fouls: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    option_choice: str | None = None

    @property
    def has_call(self) -> bool:
        return self.declarations.get("call") is not None


@dataclass(frozen=True, slots=True)
class DeclarationLog:
    """A parsed declarations file.

    Attributes:
        players: display names by player ("A", "B").
        breaker: who breaks the first rack.
        entries: every other line, in file order.
        known: False for the empty log used when no file was given (assumptions apply); a
            file is the whole record: a shot it gives no call was not announced.
    """

    players: dict[str, str] = field(default_factory=lambda: {"A": "A", "B": "B"})
    breaker: str = "A"
    entries: tuple[Entry, ...] = ()
    known: bool = False

    def for_shot(
        self, shot: int, strike_time_s: float, previous_strike_time_s: float | None
    ) -> ShotDeclarations:
        """The declarations of shot `shot` (1-based), struck at `strike_time_s`.

        A time-keyed line belongs to the first strike at or after its time, i.e. to this shot
        when previous strike < time_s <= this strike (up to half a millisecond of rounding).
        """
        lower = -float("inf") if previous_strike_time_s is None else previous_strike_time_s
        mine = [
            e
            for e in self.entries
            if e.shot == shot
            or (e.time_s is not None and lower + 5e-4 < e.time_s <= strike_time_s + 5e-4)
        ]
        return _combine(mine)


def _combine(entries: list[Entry]) -> ShotDeclarations:
    declarations: dict[str, Any] = {}
    fouls: list[str] = []
    warnings: list[str] = []
    choice: str | None = None
    for entry in entries:
        d = entry.data
        if entry.type == "call":
            # I-28: the last call before the stroke counts.
            declarations["call"] = {
                "ball": d["ball"],
                "pocket": d["pocket"],
                "source": d.get("source", "announced"),
            }
        elif entry.type == "break_announce_10":
            declarations["break_announce_10"] = True
            if d.get("pocket") is not None:
                declarations["break_announce_10_pocket"] = d["pocket"]
        elif entry.type == "push_out":
            declarations["push_out"] = True
        elif entry.type == "safety":
            declarations["safety_intended"] = True
        elif entry.type == "referee_foul" and d["foul"] not in fouls:
            fouls.append(d["foul"])
        elif entry.type == "warning":
            warnings.append(d["player"])
        elif entry.type == "option_choice":
            choice = d["choice"]
    return ShotDeclarations(declarations, tuple(fouls), tuple(warnings), choice)


def _check(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise DeclarationsError(f"{where}: {message}")


def _check_fields(kind: str, data: dict[str, Any], where: str) -> None:
    if kind == "call":
        ball = data.get("ball")
        _check(
            isinstance(ball, int) and not isinstance(ball, bool) and 1 <= ball <= 10,
            where,
            f"'ball' must be 1..10, got {ball!r}",
        )
        _check(data.get("pocket") in POCKETS, where, f"'pocket' must be one of {POCKETS}")
        _check(
            data.get("source", "announced") in ("announced", "obvious"),
            where,
            "'source' must be 'announced' or 'obvious'",
        )
    elif kind == "break_announce_10":
        pocket = data.get("pocket")
        _check(pocket is None or pocket in POCKETS, where, f"'pocket' must be one of {POCKETS}")
    elif kind == "option_choice":
        _check(
            data.get("choice") in ("shoot", "hand_back"),
            where,
            "'choice' must be shoot or hand_back",
        )
    elif kind == "referee_foul":
        _check(data.get("foul") in REFEREE_FOULS, where, f"'foul' must be one of {REFEREE_FOULS}")
    elif kind == "warning":
        _check(data.get("player") in PLAYERS, where, "'player' must be 'A' or 'B'")


def _entry(data: dict[str, Any], where: str, line: int) -> Entry:
    kind = data.get("type")
    _check(kind in TYPES, where, f"'type' must be one of {TYPES}, got {kind!r}")
    shot, time_s = data.get("shot"), data.get("time_s")
    _check(
        (shot is None) != (time_s is None),
        where,
        "give exactly one of 'shot' (1-based shot number) or 'time_s'",
    )
    _check(
        shot is None or (isinstance(shot, int) and not isinstance(shot, bool) and shot >= 1),
        where,
        f"'shot' must be a shot number >= 1, got {shot!r}",
    )
    _check(
        time_s is None or (isinstance(time_s, int | float) and time_s >= 0),
        where,
        f"'time_s' must be a time in seconds >= 0, got {time_s!r}",
    )
    _check_fields(str(kind), data, where)
    return Entry(str(kind), shot, None if time_s is None else float(time_s), data, line)


def _match_line(data: dict[str, Any], where: str) -> tuple[dict[str, str], str]:
    players = data.get("players", {"A": "A", "B": "B"})
    _check(
        isinstance(players, dict) and set(players) <= set(PLAYERS),
        where,
        "'players' must be an object with keys 'A' and 'B'",
    )
    names = {p: str(players.get(p, p)) for p in PLAYERS}
    breaker = data.get("breaker", "A")
    _check(breaker in PLAYERS, where, "'breaker' must be 'A' or 'B'")
    return names, str(breaker)


def parse_declarations(text: str, source: str = "declarations") -> DeclarationLog:
    """Parse the JSONL text of a declarations file.

    Raises:
        DeclarationsError: naming `source:line` and the bad field.
    """
    players, breaker = {"A": "A", "B": "B"}, "A"
    entries: list[Entry] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{source}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise DeclarationsError(f"{where}: not valid JSON: {error}") from None
        _check(isinstance(data, dict), where, "expected a JSON object")
        if data.get("type") == "match":
            players, breaker = _match_line(data, where)
        else:
            entries.append(_entry(data, where, number))
    return DeclarationLog(players, breaker, tuple(entries), known=True)


def load_declarations(path: str | Path) -> DeclarationLog:
    """Read a declarations file; raises DeclarationsError when missing or malformed."""
    file = Path(path)
    try:
        text = file.read_text()
    except OSError as error:
        raise DeclarationsError(f"cannot read declarations file {file}: {error.strerror}") from None
    return parse_declarations(text, file.name)


def assume_call(
    declared: ShotDeclarations, facts: dict[str, Any], is_break: bool, from_file: bool = False
) -> tuple[ShotDeclarations, list[str]]:
    """Fill in a call that nobody declared, where the rules allow it, and say so.

    When object balls dropped on a shot after the break and no call is declared:
    - with a declarations file (``from_file``), the file is the record of what was
      declared: the shot's call was not announced, and it is judged so;
    - without one the call is unknown, and the review assumes it obvious (I-29) only for a
      single-ball shot (`_single_ball_pot`): the first ball contacted dropped, no other
      object ball dropped and no object ball reached a cushion after the first contact;
      any other shot is judged as uncalled.
    The sentence returned makes the decision visible; the caller flags the call for review
    when it decides the call.

    Returns:
        (declarations to give the engine, the assumptions made, as sentences).
    """
    pocketed = [p for p in facts.get("pocketed") or [] if isinstance(p, dict)]
    if is_break or declared.has_call or not pocketed:
        return declared, []
    if from_file:
        return declared, ["no call declared for this shot: judged as not announced"]
    chosen = _single_ball_pot(facts, pocketed)
    if chosen is None:
        return declared, ["call not known and not a single-ball pot (I-29): judged as uncalled"]
    if chosen.get("pocket") is None:
        return declared, ["call not known and pocket not seen: shot judged as uncalled"]
    call = {"ball": int(chosen["ball"]), "pocket": chosen["pocket"], "source": "obvious"}
    filled = ShotDeclarations(
        {**declared.declarations, "call": call},
        declared.referee_fouls,
        declared.warnings,
        declared.option_choice,
    )
    sentence = f"call not known: assumed obvious ({call['ball']} in {call['pocket']})"
    return filled, [sentence]


def _single_ball_pot(
    facts: dict[str, Any], pocketed: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The pocketing of a single-ball shot (I-29), or None: the first ball contacted is the
    only object ball that dropped, and no object ball reached a cushion after the first
    contact (the cue ball may)."""
    first = facts.get("first_object_ball_contacted")
    cushions = facts.get("cushion_after_first_contact") or []
    if len(pocketed) != 1 or pocketed[0].get("ball") != first:
        return None
    if any(ball not in ("cue", 0) for ball in cushions):
        return None
    return pocketed[0]
