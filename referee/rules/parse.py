"""JSON dicts to engine types, with errors that name the offending field.

Every reader here raises `RulesInputError(field, problem)`; none has side effects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.rules.aliases import (
    FACT_KEY_ALIASES,
    call_form,
    declarations_form,
    option_choice_word,
    referee_foul_entries,
    referee_foul_name,
    with_canonical_keys,
)
from referee.rules.descriptive import apply_descriptive_facts
from referee.rules.errors import RulesInputError
from referee.rules.readers import (
    as_ball,
    as_bool,
    as_list,
    as_mapping,
    as_player,
    as_pocket,
    entry_ball,
    is_cue,
    whole_number,
)
from referee.rules.shot import (
    CUE,
    REFEREE_FOUL_CODES,
    CalledShot,
    CallSource,
    Declarations,
    PocketedBall,
    RefereeFoul,
    Shot,
    ShotFacts,
)

_FOUL_BY_CODE = {code: foul for foul, code in REFEREE_FOUL_CODES.items()}


def option_choice_name(value: Any) -> Any:
    """'shoot' or 'hand_back' from the ways a person writes them ("Hand back", "accept",
    "pass", "give the table back"); anything else is returned as it is, for the engine to
    refuse (Push-out 4 a/b, Déroulement 3)."""
    return option_choice_word(value)


def _balls(value: Any, where: str, on_table: tuple[int, ...] | None) -> tuple[int, ...]:
    """Object balls of a list (ints, or objects with a "ball"); "cue" entries are skipped (the
    cue ball has its own facts)."""
    raw = [(i, entry_ball(v)) for i, v in enumerate(as_list(value, where)) if not is_cue(v)]
    balls = [as_ball(v, f"{where}[{i}]") for i, v in raw]
    if len(set(balls)) != len(balls):
        raise RulesInputError(where, f"a ball is listed twice: {balls}")
    for i, ball in enumerate(balls):
        if on_table is not None and ball not in on_table:
            raise RulesInputError(f"{where}[{i}]", f"the {ball} was not on the table")
    return tuple(balls)


def _pocketed(value: Any, on_table: tuple[int, ...] | None) -> tuple[PocketedBall, ...]:
    items: list[PocketedBall] = []
    for i, entry in enumerate(as_list(value, "shot.pocketed")):
        where = f"shot.pocketed[{i}]"
        if is_cue(entry):
            continue  # read as cue_ball_pocketed by parse_facts
        if isinstance(entry, Mapping):
            ball = as_ball(entry_ball(entry), f"{where}.ball")
            raw = entry.get("pocket")
            pocket = None if raw is None else as_pocket(raw, f"{where}.pocket")
        else:
            ball, pocket = as_ball(entry, where), None
        if on_table is not None and ball not in on_table:
            raise RulesInputError(where, f"the {ball} was pocketed but was not on the table")
        if any(p.ball == ball for p in items):
            raise RulesInputError(where, f"the {ball} is listed twice")
        items.append(PocketedBall(ball, pocket))
    return tuple(items)


def _cushion_balls(value: Any, on_table: tuple[int, ...] | None) -> tuple[int | str, ...]:
    where = "shot.cushion_after_first_contact"
    items: list[int | str] = []
    for i, entry in enumerate(as_list(value, where)):
        item: int | str = CUE if is_cue(entry) else as_ball(entry_ball(entry), f"{where}[{i}]")
        if isinstance(item, int) and on_table is not None and item not in on_table:
            raise RulesInputError(f"{where}[{i}]", f"the {item} was not on the table")
        if item not in items:
            items.append(item)
    return tuple(items)


_NO_BALL = ("", "none", "null", "nothing", "no_ball", "miss", "0")
"""A first contact written as text that names no ball (rules.md §4: null)."""


def _optional_ball(value: Any, where: str, on_table: tuple[int, ...] | None) -> int | None:
    """A ball on the table, or None for null (no ball), 0 or "none"."""
    if isinstance(value, str) and value.strip().lower().replace(" ", "_") in _NO_BALL:
        return None
    if value is None or (value == 0 and not isinstance(value, bool)):
        return None
    ball = as_ball(value, where)
    if on_table is not None and ball not in on_table:
        raise RulesInputError(where, f"the {ball} was not on the table")
    return ball


def _ball_list_or_flag(value: Any, where: str) -> tuple[int, ...]:
    """Balls from a list, or from a bare true (ball unknown: recorded as the 0 placeholder)."""
    if isinstance(value, bool):
        return (0,) if value else ()
    return tuple(as_ball(v, f"{where}[{i}]") for i, v in enumerate(as_list(value, where)))


_FACT_KEYS = {
    "first_object_ball_contacted",
    "simultaneous_first_contact",
    "cue_ball_cushion_before_first_contact",
    "cushion_after_first_contact",
    "object_balls_to_cushion_on_break",
    "pocketed",
    "off_table",
    "cue_ball_pocketed",
    "cue_ball_off_table",
    "frozen_ball_touching_its_rail_without_leaving",
    "balls_moving_at_strike",
    "balls_disturbed",
    "cue_ball_pocket",
}


def _break_count(value: Any) -> int | None:
    """The count of object balls to a cushion on the break; the balls themselves when they
    are listed instead (their number is the count), or a count written as text ("5")."""
    where = "shot.object_balls_to_cushion_on_break"
    if value is None:
        return None
    if isinstance(value, list):
        return len(_balls(value, where, None))
    value = whole_number(value)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10:
        raise RulesInputError(where, f"expected a count 0..10, got {value!r}")
    return value


def _pocketed_as_list(facts: Mapping[str, Any]) -> Mapping[str, Any]:
    """`pocketed` written as {"3": "foot_left"} (ball -> pocket), or as one entry
    {"ball": 3, "pocket": "foot_left"}, as the list form."""
    pocketed = facts.get("pocketed")
    if not isinstance(pocketed, Mapping):
        return facts
    if "ball" in pocketed:
        return {**facts, "pocketed": [pocketed]}
    return {**facts, "pocketed": [{"ball": b, "pocket": p} for b, p in pocketed.items()]}


def parse_facts(data: Any, on_table: tuple[int, ...] | None = None) -> ShotFacts:
    """Read rules.md §4 shot facts (see `ShotFacts.from_json`)."""
    d = with_canonical_keys(as_mapping(data, "shot"), FACT_KEY_ALIASES)
    d = apply_descriptive_facts(_pocketed_as_list(d), on_table)
    facts = ShotFacts(
        first_object_ball_contacted=_optional_ball(
            d.get("first_object_ball_contacted"), "shot.first_object_ball_contacted", on_table
        ),
        simultaneous_first_contact=_balls(
            d.get("simultaneous_first_contact"), "shot.simultaneous_first_contact", on_table
        ),
        cue_ball_cushion_before_first_contact=as_bool(
            d.get("cue_ball_cushion_before_first_contact"),
            "shot.cue_ball_cushion_before_first_contact",
        ),
        cushion_after_first_contact=_cushion_balls(d.get("cushion_after_first_contact"), on_table),
        object_balls_to_cushion_on_break=_break_count(d.get("object_balls_to_cushion_on_break")),
        pocketed=_pocketed(d.get("pocketed"), on_table),
        off_table=_balls(d.get("off_table"), "shot.off_table", on_table),
        cue_ball_pocketed=as_bool(d.get("cue_ball_pocketed"), "shot.cue_ball_pocketed")
        or any(is_cue(v) for v in as_list(d.get("pocketed"), "shot.pocketed")),
        cue_ball_off_table=as_bool(d.get("cue_ball_off_table"), "shot.cue_ball_off_table")
        or any(is_cue(v) for v in as_list(d.get("off_table"), "shot.off_table")),
        frozen_ball_touching_its_rail_without_leaving=_balls(
            d.get("frozen_ball_touching_its_rail_without_leaving"),
            "shot.frozen_ball_touching_its_rail_without_leaving",
            None,
        ),
        balls_moving_at_strike=_ball_list_or_flag(
            d.get("balls_moving_at_strike"), "shot.balls_moving_at_strike"
        ),
        balls_disturbed=_ball_list_or_flag(d.get("balls_disturbed"), "shot.balls_disturbed"),
        extra={k: v for k, v in d.items() if k not in _FACT_KEYS},
        first_contact_reported="first_object_ball_contacted" in d
        or "simultaneous_first_contact" in d,
    )
    _check_consistent(facts)
    if d.get("cue_ball_pocket") is not None:
        as_pocket(d["cue_ball_pocket"], "shot.cue_ball_pocket")
    return facts


def _check_consistent(facts: ShotFacts) -> None:
    both = set(facts.pocketed_balls) & set(facts.off_table)
    if both:
        raise RulesInputError(
            "shot.off_table", f"ball {min(both)} is reported both pocketed and off the table"
        )
    if facts.cue_ball_pocketed and facts.cue_ball_off_table:
        raise RulesInputError(
            "shot.cue_ball_off_table", "the cue ball cannot be both pocketed and off the table"
        )


def _call_source(value: Any) -> CallSource:
    """'obvious' (a referee confirmation, I-29) or else announced: a call said aloud or
    entered ("voice", "tablet", "referee") is an announcement."""
    if value is None:
        return CallSource.ANNOUNCED
    if not isinstance(value, str):
        raise RulesInputError(
            "declarations.call.source", f"expected 'announced' or 'obvious', got {value!r}"
        )
    return CallSource.OBVIOUS if "obvious" in value.lower() else CallSource.ANNOUNCED


def parse_call(data: Any, on_table: tuple[int, ...] | None) -> CalledShot | None:
    """One ball and one pocket; of several calls the last one counts (I-28)."""
    data = call_form(data)
    if isinstance(data, list):
        data = call_form(data[-1]) if data else None
    if _no_call(data):
        return None
    if isinstance(data, int | str) and not isinstance(data, bool):
        data = {"ball": data}  # a ball alone: no pocket named
    d = as_mapping(data, "declarations.call")
    ball = as_ball(d.get("ball"), "declarations.call.ball")
    if on_table is not None and ball not in on_table:
        raise RulesInputError(
            "declarations.call.ball", f"the {ball} is already down: it cannot be called"
        )
    source = _call_source(d.get("source"))
    if _no_pocket(d.get("pocket")):  # D2: obvious, or else no valid call (CalledShot.complete)
        return CalledShot(ball, None, source)
    pocket = as_pocket(d.get("pocket"), "declarations.call.pocket")
    return CalledShot(ball, pocket, source)


_NO_CALL_TEXT = ("", "none", "null", "no", "no_call", "nothing", "false")
"""A call written as text that names no call (rules.md §4: null)."""


def _no_call(data: Any) -> bool:
    """The call says no call was made: null, false, text such as "none", or an object whose
    ball and pocket are both absent or null ({}, {"ball": null, "pocket": null})."""
    if data is None or data is False:
        return True
    if isinstance(data, str):
        return data.strip().lower().replace(" ", "_") in _NO_CALL_TEXT
    if isinstance(data, Mapping):
        return data.get("ball") is None and _no_pocket(data.get("pocket"))
    return False


_ANY_POCKET = ("", "any", "any_pocket", "none", "obvious")
"""Pocket values that name no pocket (I-05: the breaker may announce '10' with no pocket)."""


def _no_pocket(value: Any) -> bool:
    if value is None:
        return True
    return isinstance(value, str) and value.strip().lower().replace(" ", "_") in _ANY_POCKET


def parse_declarations(data: Any, on_table: tuple[int, ...] | None = None) -> Declarations:
    """Read a step's `declarations` object (rules.md §4); `calls` (several, the last counts,
    I-28) stands for `call` when that is absent."""
    d = as_mapping(declarations_form(data if data is not None else {}), "declarations")
    raw_pocket = d.get("break_announce_10_pocket")
    named = None if _no_pocket(raw_pocket) else raw_pocket
    return Declarations(
        call=parse_call(d.get("call", d.get("calls")), on_table),
        push_out=as_bool(d.get("push_out"), "declarations.push_out"),
        safety_intended=as_bool(d.get("safety_intended"), "declarations.safety_intended"),
        break_announce_10=as_bool(d.get("break_announce_10"), "declarations.break_announce_10")
        or raw_pocket is not None,
        break_announce_10_pocket=None
        if named is None
        else as_pocket(named, "declarations.break_announce_10_pocket"),
        not_read=tuple(str(k) for k in d if k not in _DECLARATION_KEYS),
    )


_DECLARATION_KEYS = {
    "call", "calls", "push_out", "safety_intended", "break_announce_10",
    "break_announce_10_pocket", "called_ball", "called_pocket", "call_ball", "call_pocket",
}  # fmt: skip
"""Keys of a declarations object the rules read (rules.md §4, and their other names)."""


def _referee_foul(entry: Any) -> RefereeFoul | None:
    """A referee foul by name ("ball_touched") or code ("F6"), also written as an object
    ({"foul": ...}, "code", "type" or "name"); None when it is neither."""
    if isinstance(entry, Mapping):
        entry = next((entry[k] for k in ("foul", "code", "type", "name") if k in entry), None)
    if not isinstance(entry, str):
        return None
    name = entry.strip()
    code = name.upper().replace("FAUTES", "F").replace("FAUTE", "F").replace(" ", "")
    if code in _FOUL_BY_CODE:
        return _FOUL_BY_CODE[code]
    try:
        return RefereeFoul(referee_foul_name(name))
    except ValueError:
        return None


def parse_referee_fouls(data: Any) -> tuple[RefereeFoul, ...]:
    """Referee fouls by rules.md §4 name ("ball_touched") or code ("F6")."""
    fouls: list[RefereeFoul] = []
    for i, raw in enumerate(as_list(referee_foul_entries(data), "referee_fouls")):
        foul = _referee_foul(raw)
        if foul is None:
            names = ", ".join(f.value for f in RefereeFoul)
            raise RulesInputError(
                f"referee_fouls[{i}]", f"unknown foul {raw!r} (expected one of {names})"
            )
        if foul not in fouls:
            fouls.append(foul)
    return tuple(fouls)


def parse_shot(data: Any, on_table: tuple[int, ...] | None = None) -> Shot:
    """Read a shot step: `declarations`, `shot` (facts or null), `referee_fouls`, `player`."""
    d = as_mapping(data, "step")
    raw_facts = d.get("shot")
    player = d.get("player")
    return Shot(
        declarations=parse_declarations(d.get("declarations"), on_table),
        facts=None if raw_facts is None else parse_facts(raw_facts, on_table),
        referee_fouls=parse_referee_fouls(d.get("referee_fouls")),
        player=None if player is None else as_player(player, "player"),
    )
