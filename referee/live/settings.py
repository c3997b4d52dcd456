"""Settings of the live service (pydantic-settings: flags, or TENBALL_* environment variables)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class LiveSettings(BaseSettings):
    """How `tenball serve` runs.

    Every field can also come from the environment as TENBALL_<FIELD> (e.g. TENBALL_TOKEN).
    """

    model_config = SettingsConfigDict(env_prefix="TENBALL_", frozen=True, extra="forbid")

    source: str = Field(
        default="0", description="camera index, video file, image folder or stream URL"
    )
    calibration: Path | None = Field(default=None, description="calibration file (design.md §4)")
    table: str = Field(
        default="auto",
        description="table size when finding the table: auto (measured from the balls), "
        "9ft/8ft/7ft or LxW in mm",
    )
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    token: str = Field(default="", description="operator token; generated at startup when empty")
    db: Path = Field(default=Path("tenball-live.sqlite3"), description="SQLite file of the matches")
    realtime: bool = Field(default=False, description="play files at their own frame rate")
    frame_queue_frames: int = Field(
        default=4,
        ge=1,
        description="frames waiting for the pipeline; more rides out hiccups, adds lag",
    )
    client_queue_messages: int = Field(
        default=512, ge=8, description="messages a viewer may lag behind before it is dropped"
    )
    balls_hz: float = Field(default=15.0, gt=0, description="ball-position messages per second")
    mjpeg_fps: float = Field(default=15.0, gt=0, description="frames per second of /stream.mjpg")
    jpeg_quality: int = Field(default=80, ge=10, le=100)
    review_below_coverage: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="a call made from fewer than this fraction of its shot's frames (the "
        "machine fell behind) is flagged for the operator to check; raising it flags more "
        "(top_combo10_blue_arm live on a loaded box: calls right from 74-86% of the frames, "
        "its break wrong from about 60%)",
    )
    fit_check_s: float = Field(
        default=10.0,
        gt=0,
        description="seconds between checks of the picture against the calibration (a moved "
        "camera is reported after two failed checks running)",
    )
    stall_after_s: float = Field(
        default=1.0, gt=0, description="silence before a source reads stalled"
    )
