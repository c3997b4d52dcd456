"""The declarations file (`--declarations FILE`, JSONL; format in docs/architecture.md).

What players and the referee declared: called ball and pocket, push-out, option choices,
fouls a person saw, warnings, the break announcement of the 10. Each line is keyed by the
shot number (1-based, in the order strikes happen) or by `time_s` (the next strike at or
after that time). A review without a file still makes every call; the assumptions it makes
instead are returned as sentences (`assume_call`) so the report can state them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from calibration.table import Pocket
from referee.rules.aliases import CHOICE_KEYS, option_choice_word
from referee.rules.errors import RulesInputError
from referee.rules.parse import parse_referee_fouls
from referee.rules.readers import as_ball, as_player, pocket_name
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
        option_choice_before: a choice keyed by time: made before this shot's strike (after
            the previous shot's call), so it answers the option that call left, if any.
    """

    declarations: dict[str, Any] = field(default_factory=dict)
    referee_fouls: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    option_choice: str | None = None
    option_choice_before: str | None = None

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
        # I-28: the last call before the stroke counts: timed lines in the order of their times
        return _combine(sorted(mine, key=lambda e: -math.inf if e.time_s is None else e.time_s))


def _combine(entries: list[Entry]) -> ShotDeclarations:
    declarations: dict[str, Any] = {}
    fouls: list[str] = []
    warnings: list[str] = []
    choice: str | None = None
    before = next((e.data["choice"] for e in _time_keyed_choices(entries)), None)
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
        elif entry.type == "referee_foul":
            fouls += [f for f in d["fouls"] if f not in fouls]
        elif entry.type == "warning":
            warnings.append(d["player"])
        elif entry.type == "option_choice" and entry.time_s is None:
            choice = d["choice"]
    return ShotDeclarations(declarations, tuple(fouls), tuple(warnings), choice, before)


def _time_keyed_choices(entries: list[Entry]) -> list[Entry]:
    """Option choices keyed by time, latest first: a choice is made between two strikes, so
    the time puts it before this shot (a shot number puts it after that shot's call)."""
    keyed = [e for e in entries if e.type == "option_choice" and e.time_s is not None]
    return sorted(keyed, key=lambda e: e.time_s or 0.0, reverse=True)


def _check(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise DeclarationsError(f"{where}: {message}")


def _ball(data: dict[str, Any], where: str) -> int:
    try:
        return as_ball(data.get("ball"), "ball")
    except RulesInputError:
        raise DeclarationsError(
            f"{where}: 'ball' must be 1..10, got {data.get('ball')!r}"
        ) from None


def _pocket(value: Any, where: str) -> str:
    name = pocket_name(value)
    _check(name in POCKETS, where, f"'pocket' must be one of {POCKETS}, got {value!r}")
    return str(name)


def _call(data: dict[str, Any], where: str) -> dict[str, Any]:
    """A call: ball 1..10 ("3" too) and pocket (any spelling of rules.md §3); an obvious
    call may leave the pocket out (D2, I-29); a source other than 'obvious' ("voice",
    "tablet") is an announcement."""
    source = data.get("source", "announced")
    _check(isinstance(source, str), where, "'source' must be 'announced' or 'obvious'")
    obvious = "obvious" in str(source).lower()
    pocket = data.get("pocket")
    out = {**data, "ball": _ball(data, where), "source": "obvious" if obvious else "announced"}
    if pocket is None and obvious:
        return {**out, "pocket": None}
    return {**out, "pocket": _pocket(pocket, where)}


def _referee_fouls(data: dict[str, Any], where: str) -> dict[str, Any]:
    """One foul ('foul', or 'code'/'name'), or several ('fouls'), by rules.md §4 name, code
    ("F6") or another name ("out_of_turn")."""
    raw = data.get("fouls", next((data[k] for k in ("foul", "code", "name") if k in data), None))
    try:
        fouls = parse_referee_fouls(raw)
    except RulesInputError:
        fouls = ()
    _check(bool(fouls), where, f"'foul' must be one of {REFEREE_FOULS}, got {raw!r}")
    return {**data, "foul": fouls[0].value, "fouls": [f.value for f in fouls]}


def _player(data: dict[str, Any], where: str) -> dict[str, Any]:
    try:
        return {**data, "player": as_player(data.get("player"), "player").value}
    except RulesInputError:
        raise DeclarationsError(
            f"{where}: 'player' must be 'A' or 'B', got {data.get('player')!r}"
        ) from None


def _normalised(kind: str, data: dict[str, Any], where: str) -> dict[str, Any]:
    """The line's fields checked and written the one way the pipeline reads them."""
    if kind == "call":
        return _call(data, where)
    if kind == "break_announce_10" and data.get("pocket") is not None:
        return {**data, "pocket": _pocket(data["pocket"], where)}
    if kind == "option_choice":
        raw = next((data[k] for k in CHOICE_KEYS if data.get(k) is not None), None)
        choice = option_choice_word(raw)
        _check(choice in ("shoot", "hand_back"), where, "'choice' must be shoot or hand_back")
        return {**data, "choice": choice}
    if kind == "referee_foul":
        return _referee_fouls(data, where)
    if kind == "warning":
        return _player(data, where)
    return data


_TYPE_ALIASES = {
    "foul": "referee_foul",
    "fouls": "referee_foul",
    "referee_fouls": "referee_foul",
    "pushout": "push_out",
    "option": "option_choice",
    "choice": "option_choice",
    "warn": "warning",
    "announce_10": "break_announce_10",
    "ten_announced": "break_announce_10",
    "called_shot": "call",
}
"""Line types by their other names."""


_TYPE_BY_KEY = (
    ("foul", "referee_foul"),
    ("fouls", "referee_foul"),
    ("choice", "option_choice"),
    ("ball", "call"),
)
"""A line without a type is the kind its one telling key says."""


def _kind(data: dict[str, Any]) -> Any:
    kind = data.get("type")
    if kind is None:
        return next((k for key, k in _TYPE_BY_KEY if key in data), None)
    if not isinstance(kind, str):
        return kind
    word = kind.strip().lower().replace("-", "_").replace(" ", "_")
    return _TYPE_ALIASES.get(word, word)


def _number(value: Any) -> Any:
    """A shot number or time written as text ("3", "12.5") is that number."""
    if isinstance(value, str):
        try:
            return float(value) if "." in value else int(value)
        except ValueError:
            return value
    return value


def _entry(data: dict[str, Any], where: str, line: int) -> Entry:
    kind = _kind(data)
    _check(kind in TYPES, where, f"'type' must be one of {TYPES}, got {data.get('type')!r}")
    shot = _number(data.get("shot", data.get("shot_number")))
    time_s = _number(data.get("time_s", data.get("time")))
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
        time_s is None
        or (isinstance(time_s, int | float) and not isinstance(time_s, bool) and time_s >= 0),
        where,
        f"'time_s' must be a time in seconds >= 0, got {time_s!r}",
    )
    rack = _number(data.get("rack", 1))
    _check(
        rack == 1 or shot is None,
        where,
        "'shot' counts over the whole match (1-based, the first break is 1): a 'rack' with "
        "shot numbers inside it is not read; give the match's shot number or 'time_s'",
    )
    fields = _normalised(str(kind), data, where)
    return Entry(str(kind), shot, None if time_s is None else float(time_s), fields, line)


def _match_line(data: dict[str, Any], where: str) -> tuple[dict[str, str], str]:
    players = data.get("players", {"A": "A", "B": "B"})
    _check(
        isinstance(players, dict) and set(players) <= set(PLAYERS),
        where,
        "'players' must be an object with keys 'A' and 'B'",
    )
    names = {p: str(players.get(p, p)) for p in PLAYERS}
    try:
        breaker = as_player(data.get("breaker", "A"), "breaker").value
    except RulesInputError:
        raise DeclarationsError(f"{where}: 'breaker' must be 'A' or 'B'") from None
    return names, breaker


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
        if _kind(data) == "match":
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
    filled = replace(declared, declarations={**declared.declarations, "call": call})
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
