"""SQLite persistence of live matches (standard library sqlite3, WAL journal).

Everything that changes a match is an *action* row, written (and committed) the moment it
happens: operator declarations, option choices, warnings, fouls a person saw, camera shots,
new racks, undos and corrections. The match state is a pure function of its action rows, so a
restart rebuilds it by replaying them (see `referee.live.session`). Camera events and calls
are stored beside the actions for the record and the export; they are never replayed.

WAL with `synchronous=NORMAL` keeps every committed row through a process crash (a kill -9);
only a power loss may lose the last few milliseconds.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee.live.store_lock import StoreInUseError, hold

__all__ = ["ActionRow", "MatchNotFoundError", "MatchStore", "StoreInUseError"]

SCHEMA_VERSION = 1

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    players TEXT NOT NULL,
    breaker TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    race_to INTEGER
);
CREATE TABLE IF NOT EXISTS actions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at TEXT NOT NULL,
    undone_by INTEGER
);
CREATE INDEX IF NOT EXISTS actions_match ON actions(match_id, id);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id INTEGER,
    frame INTEGER NOT NULL,
    time_s REAL NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_match ON events(match_id, id);
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    action_id INTEGER NOT NULL,
    payload TEXT NOT NULL,
    created_at TEXT NOT NULL,
    superseded INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS calls_match ON calls(match_id, id);
CREATE TABLE IF NOT EXISTS alerts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id INTEGER,
    message TEXT NOT NULL,
    created_at TEXT NOT NULL,
    dismissed_at TEXT
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    action_id INTEGER NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at TEXT NOT NULL
);
"""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True)
class ActionRow:
    """One stored action.

    Attributes:
        id: row id; increases with time, so it orders a match's actions.
        kind: action kind (`shot`, `call`, `push_out`, `undo`, ...).
        payload: the action's JSON object.
        created_at: ISO-8601 UTC time it was stored.
        undone_by: id of the `undo` action that cancelled it, or None.
    """

    id: int
    kind: str
    payload: dict[str, Any]
    created_at: str
    undone_by: int | None = None


class MatchNotFoundError(LookupError):
    """No match with that id in the database."""


class MatchStore:
    """The database of live matches. Thread safe (one connection behind a lock).

    Args:
        path: the SQLite file; created with its folder when missing. ":memory:" for tests.

    Raises:
        StoreInUseError: another open store (another service) holds the file.
    """

    def __init__(self, path: str | Path) -> None:
        self._held = None
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._held = hold(Path(path))
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_DDL)
        columns = {r[1] for r in self._db.execute("PRAGMA table_info(matches)").fetchall()}
        if "race_to" not in columns:  # a database from before matches had a length
            self._db.execute("ALTER TABLE matches ADD COLUMN race_to INTEGER")
        self._db.execute(
            "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
            (str(SCHEMA_VERSION),),
        )

    def close(self) -> None:
        with self._lock:
            self._db.close()
        if self._held is not None:
            self._held.close()  # releases the lock
            self._held = None

    def _insert(self, sql: str, values: tuple[Any, ...]) -> int:
        with self._lock:
            cursor = self._db.execute(sql, values)
            row_id = cursor.lastrowid
        assert row_id is not None
        return int(row_id)

    def create_match(
        self, players: dict[str, str], breaker: str, source: str = "", race_to: int | None = None
    ) -> int:
        """Store a new match (to `race_to` racks; None: no limit) and make it the current one;
        returns its id."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            cursor = self._db.execute(
                "INSERT INTO matches(created_at, players, breaker, source, race_to) "
                "VALUES (?, ?, ?, ?, ?)",
                (_now(), json.dumps(players), breaker, source, race_to),
            )
            match_id = int(cursor.lastrowid or 0)
            self._db.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('current_match', ?)",
                (str(match_id),),
            )
            self._db.execute("COMMIT")
        return match_id

    def make_current(self, match_id: int) -> None:
        """Make a stored match the current one again (a restart resumes it).

        Raises:
            MatchNotFoundError: no such match.
        """
        self.match(match_id)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('current_match', ?)",
                (str(match_id),),
            )

    def current_match_id(self) -> int | None:
        """The match the service was refereeing when it stopped, if any."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key='current_match'").fetchone()
        return int(row[0]) if row else None

    def operator_token(self, new: Callable[[], str]) -> str:
        """The operator token kept in the database (made by `new` the first time): a service
        restarted without --token keeps it, so the phones signed in to it stay signed in."""
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('operator_token', ?)", (new(),)
            )
            row = self._db.execute("SELECT value FROM meta WHERE key='operator_token'").fetchone()
        return str(row[0])

    def match(self, match_id: int) -> dict[str, Any]:
        """The match row as JSON: id, created_at, players, breaker, source, race_to."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, created_at, players, breaker, source, race_to FROM matches WHERE id=?",
                (match_id,),
            ).fetchone()
        if row is None:
            raise MatchNotFoundError(f"no match with id {match_id}")
        return {
            "id": row[0],
            "created_at": row[1],
            "players": json.loads(row[2]),
            "breaker": row[3],
            "source": row[4],
            "race_to": row[5],
        }

    def match_ids(self) -> list[int]:
        with self._lock:
            rows = self._db.execute("SELECT id FROM matches ORDER BY id").fetchall()
        return [int(r[0]) for r in rows]

    def add_action(self, match_id: int, kind: str, payload: dict[str, Any]) -> ActionRow:
        """Store an action (committed on return)."""
        created = _now()
        row_id = self._insert(
            "INSERT INTO actions(match_id, kind, payload, created_at) VALUES (?, ?, ?, ?)",
            (match_id, kind, json.dumps(payload), created),
        )
        return ActionRow(row_id, kind, payload, created)

    def mark_undone(self, action_id: int, undo_id: int) -> None:
        with self._lock:
            self._db.execute("UPDATE actions SET undone_by=? WHERE id=?", (undo_id, action_id))

    def actions(self, match_id: int) -> list[ActionRow]:
        """All actions of a match in the order they happened (undone ones included)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, kind, payload, created_at, undone_by FROM actions "
                "WHERE match_id=? ORDER BY id",
                (match_id,),
            ).fetchall()
        return [ActionRow(r[0], r[1], json.loads(r[2]), r[3], r[4]) for r in rows]

    def add_event(self, match_id: int | None, event: dict[str, Any]) -> None:
        """Store one camera event (the events.jsonl object of design.md §5)."""
        self._insert(
            "INSERT INTO events(match_id, frame, time_s, kind, payload, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                match_id,
                int(event["frame"]),
                float(event["time_s"]),
                str(event["kind"]),
                json.dumps(event),
                _now(),
            ),
        )

    def open_strike(self, match_id: int) -> dict[str, Any] | None:
        """The camera's first strike after the match's last shot end and last judged shot:
        a shot that never ended, because the service stopped during it. None when none."""
        with self._lock:
            row = self._db.execute(
                "SELECT payload, created_at FROM events WHERE match_id=? AND kind='strike' "
                "AND id > (SELECT COALESCE(MAX(id), 0) FROM events "
                "WHERE match_id=? AND kind='shot_end') "
                "AND created_at > (SELECT COALESCE(MAX(created_at), '') FROM actions "
                "WHERE match_id=? AND kind='shot') ORDER BY id LIMIT 1",
                (match_id, match_id, match_id),
            ).fetchone()
        return None if row is None else {**json.loads(row[0]), "stored_at": row[1]}

    def unjudged_since_last_action(self, match_id: int) -> list[dict[str, Any]]:
        """Camera shots refused since the match's latest action (oldest first): those held
        while an option was open come back after a restart."""
        with self._lock:
            rows = self._db.execute(
                "SELECT payload FROM audit WHERE match_id=? AND kind='unjudged_shot' "
                "AND created_at >= (SELECT COALESCE(MAX(created_at), '') FROM actions "
                "WHERE match_id=?) ORDER BY id",
                (match_id, match_id),
            ).fetchall()
        return [json.loads(r[0])["shot"] for r in rows]

    def add_call(self, match_id: int, action_id: int, call: dict[str, Any]) -> None:
        """Store a call; an earlier call of the same shot action is marked superseded."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "UPDATE calls SET superseded=1 WHERE match_id=? AND action_id=?",
                (match_id, action_id),
            )
            self._db.execute(
                "INSERT INTO calls(match_id, action_id, payload, created_at) VALUES (?, ?, ?, ?)",
                (match_id, action_id, json.dumps(call), _now()),
            )
            self._db.execute("COMMIT")

    def add_audit(self, match_id: int, action_id: int, kind: str, payload: dict[str, Any]) -> None:
        """Record a correction, an undo or an invalidated action in the audit trail."""
        self._insert(
            "INSERT INTO audit(match_id, action_id, kind, payload, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (match_id, action_id, kind, json.dumps(payload), _now()),
        )

    def add_alert(self, match_id: int | None, message: str) -> int:
        """Keep an alert for the operator until dismissed; the same message still open is
        kept once (its id is returned)."""
        with self._lock:
            row = self._db.execute(
                "SELECT id FROM alerts WHERE message=? AND dismissed_at IS NULL", (message,)
            ).fetchone()
            if row is not None:
                return int(row[0])
            cursor = self._db.execute(
                "INSERT INTO alerts(match_id, message, created_at) VALUES (?, ?, ?)",
                (match_id, message, _now()),
            )
            return int(cursor.lastrowid or 0)

    def open_alerts(self, limit: int = 5) -> list[dict[str, Any]]:
        """The newest alerts not yet dismissed, oldest first: [{"id", "message", "stored_at"}]."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, message, created_at FROM alerts WHERE dismissed_at IS NULL "
                "ORDER BY id DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [{"id": r[0], "message": r[1], "stored_at": r[2]} for r in reversed(rows)]

    def dismiss_alert(self, alert_id: int) -> bool:
        """Mark an alert seen (the operator tapped OK); False if no such open alert."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE alerts SET dismissed_at=? WHERE id=? AND dismissed_at IS NULL",
                (_now(), alert_id),
            )
        return cursor.rowcount > 0

    def _json_rows(self, sql: str, match_id: int) -> list[dict[str, Any]]:
        """Rows of (id, payload, created_at, *extra) as payload objects with their columns."""
        with self._lock:
            cursor = self._db.execute(sql, (match_id,))
            names = [d[0] for d in cursor.description]
            rows = cursor.fetchall()
        out = []
        for row in rows:
            item: dict[str, Any] = json.loads(row[1])
            item.update({n: v for n, v in zip(names, row, strict=True) if n != "payload"})
            out.append(item)
        return out

    def export(self, match_id: int) -> dict[str, Any]:
        """Everything stored about a match, as one JSON object."""
        match = self.match(match_id)
        actions = [
            {
                "id": a.id,
                "kind": a.kind,
                "payload": a.payload,
                "created_at": a.created_at,
                "undone_by": a.undone_by,
            }
            for a in self.actions(match_id)
        ]
        return {
            "schema": "tenball-live-match/1",
            "match": match,
            "actions": actions,
            "events": self._json_rows(
                "SELECT id, payload, created_at AS stored_at FROM events "
                "WHERE match_id=? ORDER BY id",
                match_id,
            ),
            "calls": self._json_rows(
                "SELECT id, payload, created_at AS stored_at, action_id, superseded FROM calls "
                "WHERE match_id=? ORDER BY id",
                match_id,
            ),
            "audit": self._json_rows(
                "SELECT id, payload, created_at AS stored_at, action_id, kind FROM audit "
                "WHERE match_id=? ORDER BY id",
                match_id,
            ),
        }
