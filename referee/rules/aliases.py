"""Other ways a scenario author writes the rules input, brought to rules.md §3-4 names.

A scenario of the same specification may word its input differently from
scenarios-public.json: a key named `first_ball_contacted`, a call written "3 in foot_left",
referee fouls as {"slow_play": true}, a step type "Option Choice". Each function here takes
the raw JSON value and returns it in the canonical form (or unchanged when it is not one of
these other forms, for the readers to accept or refuse with the field named). Only spellings
that cannot mean anything else are taken: a key the engine does not know is never guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

FACT_KEY_ALIASES: dict[str, str] = {
    "first_ball_contacted": "first_object_ball_contacted",
    "first_ball_hit": "first_object_ball_contacted",
    "first_contact": "first_object_ball_contacted",
    "first_contact_ball": "first_object_ball_contacted",
    "first_object_ball": "first_object_ball_contacted",
    "first_object_ball_hit": "first_object_ball_contacted",
    "first_ball": "first_object_ball_contacted",
    "cushion_after_contact": "cushion_after_first_contact",
    "cushions_after_first_contact": "cushion_after_first_contact",
    "rail_after_first_contact": "cushion_after_first_contact",
    "rails_after_first_contact": "cushion_after_first_contact",
    "balls_to_cushion_after_first_contact": "cushion_after_first_contact",
    "pocketed_balls": "pocketed",
    "balls_pocketed": "pocketed",
    "potted": "pocketed",
    "balls_off_table": "off_table",
    "off_table_balls": "off_table",
    "jumped_off_table": "off_table",
    "cue_ball_scratched": "cue_ball_pocketed",
    "scratch": "cue_ball_pocketed",
    "cue_ball_jumped_off_table": "cue_ball_off_table",
    "object_balls_to_cushion": "object_balls_to_cushion_on_break",
    "balls_to_cushion_on_break": "object_balls_to_cushion_on_break",
    "object_balls_to_rail_on_break": "object_balls_to_cushion_on_break",
    "cue_ball_rail_before_first_contact": "cue_ball_cushion_before_first_contact",
    "simultaneous_contact": "simultaneous_first_contact",
}
"""Shot fact keys (rules.md §4) by the other names an author may give them."""

DECLARATION_KEY_ALIASES: dict[str, str] = {
    "called_shot": "call",
    "called": "call",
    "pushout": "push_out",
    "push": "push_out",
    "push_out_declared": "push_out",
    "safety": "safety_intended",
    "announce_10": "break_announce_10",
    "ten_announced": "break_announce_10",
    "announced_10": "break_announce_10",
    "break_announce_ten": "break_announce_10",
    "announce_10_pocket": "break_announce_10_pocket",
    "break_announce_ten_pocket": "break_announce_10_pocket",
}
"""Declaration keys by their other names; `call` may also come as flat ball/pocket keys."""

_FLAT_CALL_KEYS = (
    ("called_ball", "called_pocket"),
    ("call_ball", "call_pocket"),
)


def with_canonical_keys(data: Any, aliases: Mapping[str, str]) -> Any:
    """`data` with aliased keys renamed (a canonical key already present wins)."""
    if not isinstance(data, Mapping):
        return data
    out = dict(data)
    for key, value in data.items():
        name = aliases.get(_word(key)) if isinstance(key, str) else None
        if name is not None and name not in data:
            out[name] = value
            del out[key]
    return out


def declarations_form(data: Any) -> Any:
    """A declarations object with canonical keys, a flat called ball/pocket made `call`, and
    the 10 announced on the break written as its pocket ("foot_left") or as the ball (10)."""
    d = with_canonical_keys(data, DECLARATION_KEY_ALIASES)
    if not isinstance(d, Mapping):
        return d
    d = _announcement_form(d)
    if d.get("call") is not None:
        return d
    for ball_key, pocket_key in _FLAT_CALL_KEYS:
        if d.get(ball_key) is not None:
            return {**d, "call": {"ball": d[ball_key], "pocket": d.get(pocket_key)}}
    return d


def _announcement_form(d: Mapping[str, Any]) -> Mapping[str, Any]:
    raw = d.get("break_announce_10")
    if raw == 10 and not isinstance(raw, bool):
        return {**d, "break_announce_10": True}
    if isinstance(raw, str) and _word(raw) not in _FLAG_WORDS:
        pocket = d.get("break_announce_10_pocket", raw)
        return {**d, "break_announce_10": True, "break_announce_10_pocket": pocket}
    return d


_FLAG_WORDS = ("true", "false", "yes", "no", "y", "n", "1", "0", "oui", "non", "")
"""Text that is a flag, not a pocket (readers.as_bool reads it)."""

_CALL_TEXT = re.compile(r"^\s*(?:ball\s*)?#?(\d{1,2})\s*(?:ball)?\s*(?:in|->|:|,|@)?\s*(.*?)\s*$")
"""A call written as text: "3 foot_left", "3 in foot left", "3 -> foot_left", "ball 3 in ..."."""


def call_form(data: Any) -> Any:
    """A call written as text ("3 in foot_left"), as a [ball, pocket] pair or as
    {ball: pocket} made the {"ball", "pocket"} object; anything else unchanged."""
    if isinstance(data, str):
        match = _CALL_TEXT.match(data)
        if match and match.group(2):
            return {"ball": int(match.group(1)), "pocket": match.group(2)}
        return data
    if isinstance(data, list) and len(data) == 2 and _is_pocket_text(data[1]):
        return {"ball": data[0], "pocket": data[1]}
    if isinstance(data, Mapping) and "ball" not in data:
        for ball_key, pocket_key in _FLAT_CALL_KEYS:
            if ball_key in data:
                return {**data, "ball": data[ball_key], "pocket": data.get(pocket_key)}
    if isinstance(data, Mapping) and len(data) == 1 and "ball" not in data:
        ((key, value),) = data.items()
        if isinstance(key, str) and key.strip().isdigit() and _is_pocket_text(value):
            return {"ball": key, "pocket": value}
    return data


def _is_pocket_text(value: Any) -> bool:
    return isinstance(value, str) and not value.strip().isdigit()


def _word(text: str) -> str:
    return text.strip().lower().replace("-", "_").replace(" ", "_")


STATE_KEY_ALIASES: dict[str, str] = {
    "balls": "balls_on_table",
    "balls_on_the_table": "balls_on_table",
    "object_balls_on_table": "balls_on_table",
    "to_shoot": "turn",
    "at_table": "turn",
    "player_to_shoot": "turn",
    "shooter": "turn",
    "fouls": "consecutive_fouls",
    "consecutive_foul_count": "consecutive_fouls",
    "foul_count": "consecutive_fouls",
    "warnings": "warned",
    "warned_players": "warned",
    "cue_ball_state": "cue_ball",
    "cue": "cue_ball",
    "push_out_allowed": "push_out_available",
    "pushout_available": "push_out_available",
    "option": "pending_option",
    "pending": "pending_option",
    "winner": "rack_winner",
    "break": "is_break",
}
"""rules.md §3 state keys by their other names."""

STEP_KEY_ALIASES: dict[str, str] = {
    "facts": "shot",
    "shot_facts": "shot",
    "camera": "shot",
    "camera_facts": "shot",
    "declaration": "declarations",
    "declared": "declarations",
    "referee_foul": "referee_fouls",
    "referee_seen_fouls": "referee_fouls",
    "fouls_seen_by_referee": "referee_fouls",
    "shooter": "player",
    "played_by": "player",
    "step_type": "type",
    "kind": "type",
}
"""Keys of a step (scenario conventions) by their other names."""

STEP_TYPE_ALIASES: dict[str, str] = {
    "option": "option_choice",
    "choice": "option_choice",
    "optionchoice": "option_choice",
    "push_out_option": "option_choice",
    "push_out_choice": "option_choice",
    "warn": "warning",
    "rackcheck": "rack_check",
    "rack": "rack_check",
    "concede": "concession",
    "forfeit": "concession",
    "newrack": "new_rack",
    "next_rack": "new_rack",
    "rerack": "stalemate",
    "re_rack": "stalemate",
    "warning_given": "warning",
    "foul_warning": "warning",
    "two_foul_warning": "warning",
    "push_out_response": "option_choice",
    "push_out_decision": "option_choice",
    "option_decision": "option_choice",
    "rack_validation": "rack_check",
    "check_rack": "rack_check",
    "break": "shot",
    "break_shot": "shot",
    "normal_shot": "shot",
    "stroke": "shot",
}
"""Step types (scenario conventions) by their other names."""


SHOT_STEP_DECLARATIONS: dict[str, str] = {
    "push_out": "push_out",
    "pushout": "push_out",
    "push": "push_out",
    "push_out_shot": "push_out",
    "safety": "safety_intended",
    "safety_shot": "safety_intended",
}
"""Step types that are a shot with a declaration: a step typed "push_out" is a shot declared
a push-out (Push-out 3), one typed "safety" a shot with a safety intended (I-13)."""


def step_type(kind: Any) -> Any:
    """A step type in any case and with spaces or hyphens ("Option Choice")."""
    if not isinstance(kind, str):
        return kind
    word = _word(kind)
    return STEP_TYPE_ALIASES.get(word, word)


_HAND_BACK_WORDS = (
    "back", "return", "redonn", "decline", "refuse", "pass", "opponent", "previous", "other",
    "again",
)  # fmt: skip
_SHOOT_WORDS = ("shoot", "accept", "play", "take", "keep", "jouer")


def option_choice_word(value: Any) -> Any:
    """'hand_back' or 'shoot' from a phrase ("give the table back", "accept the table");
    a phrase with neither kind of word is returned unchanged (refused by the engine)."""
    if not isinstance(value, str):
        return value
    word = _word(value)
    if any(w in word for w in _HAND_BACK_WORDS):
        return "hand_back"
    if any(w in word for w in _SHOOT_WORDS):
        return "shoot"
    return word


CHOICE_KEYS = ("choice", "option", "decision", "choose", "chosen", "action", "selected")
"""Keys of an option-choice step that hold the choice."""

REFEREE_FOUL_ALIASES: dict[str, str] = {
    "foot_off_floor": "no_foot_on_floor",
    "no_foot_on_the_floor": "no_foot_on_floor",
    "no_foot": "no_foot_on_floor",
    "feet_off_floor": "no_foot_on_floor",
    "touched_ball": "ball_touched",
    "ball_touch": "ball_touched",
    "touched": "ball_touched",
    "touching_ball": "ball_touched",
    "double_contact": "double_hit",
    "double_hit_frozen_balls": "double_hit",
    "frozen_balls_double_hit": "double_hit",
    "push": "push_shot",
    "pushed": "push_shot",
    "ball_pushed": "push_shot",
    "ball_moving": "balls_moving",
    "balls_in_motion": "balls_moving",
    "ball_in_motion": "balls_moving",
    "shot_while_balls_moving": "balls_moving",
    "bad_placement": "bad_cue_ball_placement",
    "cue_ball_placement": "bad_cue_ball_placement",
    "cue_ball_misplaced": "bad_cue_ball_placement",
    "wrong_cue_ball_placement": "bad_cue_ball_placement",
    "cue_ball_wrong_position": "bad_cue_ball_placement",
    "cue_on_the_table": "cue_on_table",
    "cue_laid_on_table": "cue_on_table",
    "out_of_turn": "played_out_of_turn",
    "playing_out_of_turn": "played_out_of_turn",
    "play_out_of_turn": "played_out_of_turn",
    "time_foul": "slow_play",
    "excessive_time": "slow_play",
    "shot_clock": "slow_play",
    "time_limit": "slow_play",
    "time_limit_exceeded": "slow_play",
}
"""Referee fouls (rules.md §4 names) by their other names."""

NO_FOUL_WORDS = ("", "none", "no_foul", "null")
"""Entries of `referee_fouls` that name no foul."""


def referee_foul_entries(data: Any) -> Any:
    """`referee_fouls` written as {"slow_play": true, "ball_touched": false} made the list of
    the names set true; an entry that says "none" dropped; anything else unchanged."""
    if isinstance(data, Mapping) and not any(k in data for k in ("foul", "code", "type", "name")):
        return [key for key, value in data.items() if value is True]
    if isinstance(data, list):
        return [e for e in data if not (e is None or _is_no_foul(e))]
    if isinstance(data, str) and _is_no_foul(data):
        return []
    return data


def _is_no_foul(entry: Any) -> bool:
    return isinstance(entry, str) and _word(entry) in NO_FOUL_WORDS


def referee_foul_name(name: str) -> str:
    word = _word(name)
    return REFEREE_FOUL_ALIASES.get(word, word)
