"""A live server process for the restart test: `python server_main.py DB PORT TOKEN [VIDEO]`.

PORT 0 takes any free port; the first line on stdout is `port N`, the port it listens on.
Runs the real app on uvicorn with the scripted break of helpers.py as its pipeline (the video,
when given, is played at its frame rate; the break is held until DB.go exists), so the test
can kill it with SIGKILL mid-match.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from referee.live.app import create_app
from referee.live.listen import bound_port, listen
from referee.live.settings import LiveSettings
from tests.referee.live.helpers import break_script


def main() -> None:
    db, port, token = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    source = sys.argv[4] if len(sys.argv) > 4 else "none"
    settings = LiveSettings(source=source, db=Path(db), port=port, token=token, realtime=True)
    pipeline = break_script()
    pipeline.gate.clear()  # the break is reported once the test creates DB.go

    def open_gate() -> None:
        while not Path(db + ".go").exists():
            time.sleep(0.05)
        pipeline.gate.set()

    threading.Thread(target=open_gate, daemon=True).start()
    app = create_app(settings, make_pipeline=lambda frame: pipeline)
    sock = listen("127.0.0.1", port)
    print(f"port {bound_port(sock)}", flush=True)
    config = uvicorn.Config(app, host="127.0.0.1", port=bound_port(sock), log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
