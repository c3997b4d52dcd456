"""The lock that keeps a match database to one running service (one table)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


class StoreInUseError(RuntimeError):
    """Another running service holds the database (two tables given the same --db)."""


def hold(path: Path) -> Any:
    """An open lock file beside the database, locked for this process alone.

    Two services on one database would share its current match: the second table would
    resume the first one's match and each would overwrite what the other started. The lock
    is the kernel's (flock): a killed service (kill -9) releases it with its process, so a
    restart is never refused by a stale lock.

    Raises:
        StoreInUseError: another process holds it; the message names that process.
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, as before
        return None
    handle = path.with_name(path.name + ".lock").open("a+")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise StoreInUseError(
            f"the match database {path} is in use by {holder}: each table needs its own "
            "database (--db), and a service must stop before another takes its database"
        ) from error
    handle.seek(0)
    handle.truncate()
    handle.write(f"tenball serve (pid {os.getpid()})\n")
    handle.flush()
    return handle
