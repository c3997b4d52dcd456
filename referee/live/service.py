"""The live referee: a match session backed by the store, publishing what changes.

Every change is stored before it is applied and published, so what a viewer saw is always
what a restart finds. Operator actions are tried on a copy of the match first: one the rules
refuse raises `RulesError` and leaves nothing stored. Camera shots are stored whatever
happens (the camera saw them); one the rules cannot judge is published as an alert.

Not thread safe: the web app calls it from its event loop only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from referee.live import session
from referee.live.session import Action, MatchView, RulesBackend, RulesError
from referee.live.shadow import camera_facts
from referee.live.store import ActionRow, MatchStore

Publish = Callable[[dict[str, Any]], None]
"""Sends one message (a JSON object with a "type") to every viewer."""


class NoMatchError(RulesError):
    """An action needs a match and none has been started."""


class LiveReferee:
    """The match being refereed, its storage and its messages.

    Args:
        store: the match database.
        rules: the rules engine.
        publish: called with each message for the viewers (`state`, `call`, `event`,
            `alert`, `audit`, `moved_to_next_shot`).
        clock: monotonic seconds, the clock of the capture's `captured_s`.
    """

    def __init__(
        self,
        store: MatchStore,
        rules: RulesBackend,
        publish: Publish,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.rules = rules
        self.publish = publish
        self.clock = clock
        self.taps: list[tuple[float, int]] = []
        """(clock time, action id) of the declarations tapped at rest since the last judged
        shot: the camera reports a strike a few frames late, and those tapped after the
        stroke's frame was captured are moved to the next shot when the strike comes."""
        self.match_id: int | None = None
        self.view: MatchView | None = None
        self._match: dict[str, Any] = {}
        self.interrupted: dict[str, Any] | None = None
        """The strike of a shot the service stopped during (its call was never made), found
        when resuming; cleared by the next judged shot."""
        self.held: list[dict[str, Any]] = []
        """Camera shots played while an option was open (nobody entered the holder's choice):
        judged, in order, as soon as the operator enters it."""
        self.rolling: dict[str, Any] | None = None
        """The camera's strike of the shot being played (from the strike to its shot's end):
        a call or push-out tapped meanwhile is for the next shot, not for this one."""
        self.replaced_strike: int | None = None
        """The strike frame of a camera shot the camera went down during and the operator
        entered by hand: the camera's own end of it, once the picture is back, is not judged
        a second time."""

    def resume(self) -> bool:
        """Load the match the service was refereeing before it stopped; False if none."""
        match_id = self.store.current_match_id()
        if match_id is None:
            return False
        self._load(match_id)
        self.interrupted = self.store.open_strike(match_id)
        if self.view is not None and isinstance(self.view.state.get("pending_option"), dict):
            self.held = self.store.unjudged_since_last_action(match_id)
        return True

    def interrupted_alert(self) -> dict[str, Any] | None:
        """The alert a viewer gets while a shot cut by a restart has no call."""
        if self.interrupted is None:
            return None
        at = str(self.interrupted.get("stored_at", ""))[11:19]
        return {
            "type": "alert",
            "message": f"the service stopped during a shot (struck at {at} UTC) and its call "
            "was lost: enter what happened (a missed shot) or carry on if it changes nothing",
        }

    def _load(self, match_id: int) -> None:
        self._match = self.store.match(match_id)
        self.match_id = match_id
        self.view = self._replay()

    def _live_actions(self) -> list[Action]:
        assert self.match_id is not None
        rows = self.store.actions(self.match_id)
        return [Action(r.id, r.kind, r.payload) for r in rows if _counts(r)]

    def _replay(self) -> MatchView:
        match = self._match
        return session.replay(
            match["players"], match["breaker"], self._live_actions(), self.rules, match["race_to"]
        )

    def state_message(self) -> dict[str, Any]:
        """The `state` message: the whole match as viewers need it, and whether a shot
        still rolls (declarations made now are for the next shot unless said otherwise)."""
        if self.view is None:
            return {"type": "state", "match_id": None, "match": None}
        return {"type": "state", "match_id": self.match_id, "match": self.view.to_json(),
                "shot_rolling": self.rolling is not None}  # fmt: skip

    def start_match(
        self, players: dict[str, str], breaker: str, source: str = "", race_to: int | None = None
    ) -> int:
        session.start(players, breaker, self.rules, race_to)  # validates before storing
        match_id = self.store.create_match(players, breaker, source, race_to)
        self.held, self.taps = [], []
        self._load(match_id)
        self.publish(self.state_message())
        return match_id

    def resume_match(self, match_id: int) -> dict[str, Any]:
        """Go back to a stored match (one replaced by a new match started by mistake).

        Raises:
            MatchNotFoundError: no such match; nothing changed.
        """
        self.store.make_current(match_id)
        self.held, self.taps, self.interrupted = [], [], None
        self._load(match_id)
        self.publish(self.state_message())
        return self.state_message()

    def _require_match(self) -> tuple[int, MatchView]:
        if self.match_id is None or self.view is None:
            raise NoMatchError("no match started: POST /api/match first")
        return self.match_id, self.view

    def act(
        self, kind: str, payload: dict[str, Any], for_shot: str | None = None
    ) -> dict[str, Any]:
        """Apply an operator action (declaration, option choice, warning, new rack).

        A declaration made while a shot still rolls is for the shot after it, unless
        `for_shot` is "this" (the operator entered late what was said before the stroke).
        """
        match_id, view = self._require_match()
        rolling = self.rolling is not None and kind in session.NEXT_SHOT_KINDS
        later = rolling and for_shot != "this"
        if later:  # the balls still roll: the stroke this was said for has not come yet
            payload = {**payload, "for_next_shot": True}
        session.apply(view, Action(0, kind, payload), self.rules)  # raises before storing
        row = self.store.add_action(match_id, kind, payload)
        if kind in session.NEXT_SHOT_KINDS and not rolling and for_shot in (None, "auto"):
            self.taps.append((self.clock(), row.id))
        self.view = session.apply(view, Action(row.id, kind, payload), self.rules)
        self.publish(self.state_message())
        result = self.view.last_result if kind in ("option_choice", "warning") else None
        dropped = (result or {}).get("dropped_declarations")
        if dropped:  # e.g. a push-out tapped before the choice: none once the option is taken
            self.publish({"type": "alert", "message": f"{_said(dropped['declarations'])} was "
                          f"dropped when the option was taken: {dropped['refused']}"})  # fmt: skip
        held, self.held = self.held, []
        if kind == "option_choice":  # the shots played meanwhile can be judged now
            calls = [c for c in map(self.on_shot, held) if c is not None]
        else:
            calls, self.held = [], held if kind != "new_rack" else []
        return {"action_id": row.id, "result": result, "for_next_shot": later,
                "while_rolling": rolling, "held_calls": calls, **self.state_message()}  # fmt: skip

    def on_shot(self, shot: dict[str, Any]) -> dict[str, Any] | None:
        """Judge a finished shot from the camera; returns the call, or None if not judged.

        A shot the rules cannot judge now (the rack is over, an option is pending) is kept in
        the audit trail and announced as an alert, but not stored as an action: undoing or
        correcting later never brings it back. One played while an option was open is held
        and judged once the operator enters the choice.
        """
        self.rolling = None
        if self.match_id is None or self.view is None:
            self.publish({"type": "alert", "message": "shot seen but no match started"})
            return None
        strike, replaced = shot.get("frame_strike"), self.replaced_strike
        if isinstance(strike, int) and replaced is not None and strike <= replaced:
            audit = {"reason": "entered by hand while the camera was down", "shot": shot}
            self.store.add_audit(self.match_id, 0, "replaced_by_entered_shot", audit)
            self.publish({"type": "alert", "message": "the camera came back and ended the shot "
                          "it went down during: it was entered by hand, so the camera's version "
                          "is not judged (it is kept in the match's export)"})  # fmt: skip
            return None
        shot = _on_table(shot, self.view)
        try:  # a shot the rules cannot take now (rack over, option pending) is not an action
            session.apply(self.view, Action(0, "shot", shot), self.rules)
        except RulesError as error:
            audit = {"reason": str(error), "shot": shot}
            option = self.view.state.get("pending_option")
            if isinstance(option, dict) and not self.view.rack_over:
                self.held.append(shot)
                holder = self.view.players.get(str(option.get("holder")), "the holder")
                message = (f"a shot was played while {holder}'s option was open: tap Shoot or "
                           "Hand back and the shot is judged then")  # fmt: skip
            else:
                message = f"shot not judged: {error}"
            self.store.add_audit(self.match_id, 0, "unjudged_shot", audit)
            self.publish({"type": "alert", "message": message})
            return None
        return self._judged(shot)

    def enter_shot(self, shot: dict[str, Any]) -> dict[str, Any]:
        """Judge a shot the camera missed, entered by the operator (its facts by hand).

        Raises:
            RulesError: no match, or the rules cannot take a shot now; nothing is stored.
        """
        _match_id, view = self._require_match()
        session.apply(view, Action(0, "shot", shot), self.rules)  # raises before storing
        cut = self.rolling if self.rolling and self.rolling.get("source_down") else None
        if cut is not None:  # this is the shot the camera went down during
            self.rolling, self.replaced_strike = None, int(cut.get("frame", -1))
        call = self._judged(shot)
        return {"call": call, **self.state_message()}

    def on_source_down(self) -> None:
        """The camera stalled or is reconnecting: a shot rolling now may never end on camera
        (a shot entered by hand meanwhile is that shot, see `replaced_strike`)."""
        if self.rolling is not None:
            self.rolling = {**self.rolling, "source_down": True}

    def _judged(self, shot: dict[str, Any]) -> dict[str, Any]:
        """Store a shot the rules take now, judge it and publish its call."""
        assert self.match_id is not None and self.view is not None
        self.interrupted, self.taps = None, []
        row = self.store.add_action(self.match_id, "shot", shot)
        self.view = session.apply(self.view, Action(row.id, "shot", shot), self.rules)
        call = self.view.last_call
        assert call is not None
        self.store.add_call(self.match_id, row.id, call)
        self.publish({"type": "call", **call})
        self.publish(self.state_message())
        carried = call.get("carried") or {}
        if carried.get("refused"):
            said = _said(carried["declarations"])
            self.publish({"type": "alert", "message": f"{said}, tapped while the balls rolled, "
                          f"was not kept for the next shot: {carried['refused']}"})  # fmt: skip
        return call

    def on_event(self, event: dict[str, Any], happened_s: float | None = None) -> None:
        """Store and publish a camera event (design.md §5 event object).

        `happened_s` is when the frame the event happened on was captured (on `clock`): the
        declarations tapped after a strike's frame, before the camera was sure of it, are
        for the next shot, as if tapped while the balls rolled.
        """
        if event.get("kind") == "strike":
            self.rolling = event
        elif event.get("kind") == "shot_end":
            self.rolling = None
        self.store.add_event(self.match_id, event)
        self.publish({"type": "event", **event})
        if event.get("kind") == "strike":
            late = [i for t, i in self.taps if happened_s is not None and t > happened_s]
            self.taps = []
            if late:
                self._move_to_next_shot(late, event)

    def _move_to_next_shot(self, action_ids: list[int], strike: dict[str, Any]) -> None:
        """Declarations tapped after the stroke (the camera said so late) become the next
        shot's: each is stored again for the next shot and the tapped one cancelled by it,
        so that the match, a replay and a restart all read them so; the rolling shot keeps
        what was declared before its stroke. The page is told (`moved_to_next_shot`), to ask
        the operator as it asks for a call tapped while the balls roll."""
        if self.match_id is None:
            return
        in_force = {r.id: r for r in self.store.actions(self.match_id) if _counts(r)}
        moved: list[dict[str, Any]] = []
        for action_id in action_ids:
            row = in_force.get(action_id)
            if row is None:  # undone meanwhile
                continue
            payload = {**row.payload, "for_next_shot": True, "moved_from": row.id}
            again = self.store.add_action(self.match_id, row.kind, payload)
            self.store.mark_undone(row.id, again.id)
            moved.append({"action_id": again.id, "moved_from": row.id, "kind": row.kind,
                          "payload": dict(row.payload)})  # fmt: skip
        if not moved:
            return
        audit = {"moved": moved, "strike": {k: strike.get(k) for k in ("frame", "time_s")}}
        last = int(moved[-1]["action_id"])
        self.store.add_audit(self.match_id, last, "moved_to_next_shot", audit)
        self.view = self._replay()
        self.publish({"type": "moved_to_next_shot", **audit})
        self.publish(self.state_message())

    def undo(self) -> dict[str, Any]:
        """Cancel the latest action still in force (a declaration, a shot, a correction...)."""
        match_id, _view = self._require_match()
        rows = [r for r in self.store.actions(match_id) if _counts(r)]
        if not rows:
            raise RulesError("nothing to undo")
        target = rows[-1]
        undo = self.store.add_action(match_id, "undo", {"target": target.id})
        self.store.mark_undone(target.id, undo.id)
        self._rejudge(match_id, undo.id, {"undone": {"id": target.id, "kind": target.kind}})
        return {"undone": {"action_id": target.id, "kind": target.kind}, **self.state_message()}

    def correct(self, correction: dict[str, Any]) -> dict[str, Any]:
        """Amend a judged shot (its facts, declarations or referee fouls) and judge again.

        `correction["target"]` is the shot's action id (default: the latest shot). The call
        before and after, the reason and every action the change invalidated go to the audit.
        """
        match_id, view = self._require_match()
        target = correction.get("target")
        if target is None:
            if not view.calls:
                raise RulesError("no judged shot to correct")
            target = view.calls[-1]["action_id"]
        shots = {c["action_id"] for c in view.calls}
        if target not in shots:
            raise RulesError(f"action {target} is not a judged shot of this match")
        payload = {**correction, "target": int(target)}
        trial = [*self._live_actions(), Action(-1, "correct", payload)]
        match = self._match
        view = session.replay(
            match["players"], match["breaker"], trial, self.rules, match["race_to"]
        )
        for skipped in view.invalidated:
            if skipped["action_id"] == target:
                raise RulesError(f"the corrected shot cannot be judged: {skipped['reason']}")
        row = self.store.add_action(match_id, "correct", payload)
        self._rejudge(match_id, row.id, {"correction": payload})
        return {"action_id": row.id, **self.state_message()}

    def _rejudge(self, match_id: int, action_id: int, what: dict[str, Any]) -> None:
        """Replay after an undo or a correction; store, audit and publish what changed."""
        before = {c["action_id"]: c for c in (self.view.calls if self.view else [])}
        self.view = self._replay()
        after = {c["action_id"]: c for c in self.view.calls}
        changed = []
        for shot_id in sorted(set(before) | set(after)):
            old, new = before.get(shot_id), after.get(shot_id)
            if old is None or new is None or old["result"] != new["result"]:
                changed.append({"shot_action_id": shot_id, "before": old, "after": new})
            if new is not None and new != old:
                self.store.add_call(match_id, shot_id, new)
        audit = {**what, "changed_calls": changed, "invalidated": self.view.invalidated}
        self.store.add_audit(match_id, action_id, "undo" if "undone" in what else "correct", audit)
        self.publish({"type": "audit", "action_id": action_id, **audit})
        for change in changed:
            if change["after"] is not None:
                self.publish({"type": "call", **change["after"]})
        self.publish(self.state_message())

    def match_json(self, match_id: int) -> dict[str, Any]:
        """A stored match with its current standing (GET /api/matches/{id})."""
        match = self.store.match(match_id)
        rows = [Action(r.id, r.kind, r.payload) for r in self.store.actions(match_id) if _counts(r)]
        view = session.replay(
            match["players"], match["breaker"], rows, self.rules, match["race_to"]
        )
        return {
            **match,
            "current": match_id == self.match_id,
            "standing": view.to_json(),
            "calls": view.calls,
        }


def _on_table(shot: dict[str, Any], view: MatchView) -> dict[str, Any]:
    """A camera shot without the balls the match says are down, the change in its reasons."""
    facts, notes = camera_facts(shot.get("facts") or {}, view.state.get("balls_on_table") or [])
    reasons = list(shot.get("review_reasons") or [])
    if not notes:
        return shot
    return {**shot, "facts": facts, "review_reasons": reasons + [n for n in notes
                                                                  if n not in reasons]}  # fmt: skip


def _said(declarations: dict[str, Any]) -> str:
    """Declarations in words: "the call of the 3 in side_left", "a push-out"..."""
    call = declarations.get("call")
    if isinstance(call, dict):
        return f"the call of the {call.get('ball')} in {call.get('pocket')}"
    if declarations.get("push_out"):
        return "the push-out"
    if declarations.get("break_announce_10"):
        return "the 10 announced on the break"
    return "what was declared"


def _counts(row: ActionRow) -> bool:
    """Whether a stored action is in force (not undone, not an undo record)."""
    return row.undone_by is None and row.kind != "undo"
