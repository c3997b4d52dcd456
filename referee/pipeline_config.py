"""`PipelineConfig` from a TOML file (style.md §8: configuration is loaded at the edge).

```toml
full_search_every_s = 0.5      # or full_search_every_frames = 30 (frames win when both)
detector_model = "models/ball-detector.onnx"   # optional: the learned detector (a path
                                               # relative to this file); default classical

[detector]          # vision.detector.DetectorConfig fields
[tracker]           # tracking.tracker.TrackerConfig fields
measurement_std_mm = 3.0
[events]            # tracking.events.EventConfig fields
[shots]             # referee.shots.ShotConfig fields
[rack_fill]         # tracking.rack_fill.RackFillConfig fields (enabled = false: off)
[search]            # where the detector looks: PipelineConfig's search settings
lost_cue_wait_s = 0.25         # (SEARCH_SETTINGS lists them)
[calls]
review_below_confidence = 0.8
[calls.rules]       # referee.rules.RulesConfig fields
option_on_any_wrongful_pocket = true
```

Every key must name a field of its section; a typo is an error naming it, never ignored.
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any

from referee.pipeline import PipelineConfig
from referee.pipeline_calls import CallConfig
from referee.rules import RulesConfig


class ConfigError(ValueError):
    """A pipeline config file is unreadable or names an unknown field; the message says which."""


def _build(kind: type[Any], values: Any, where: str) -> Any:
    if not isinstance(values, dict):
        raise ConfigError(f"[{where}] must be a table of settings")
    names = {f.name for f in dataclasses.fields(kind)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise ConfigError(
            f"unknown setting {where}.{unknown[0]}; known: {', '.join(sorted(names))}"
        )
    try:
        defaults = kind()
        nested = {
            name: _build(type(getattr(defaults, name)), value, f"{where}.{name}")
            for name, value in values.items()
            if isinstance(value, dict) and dataclasses.is_dataclass(getattr(defaults, name))
        }
        return kind(**(values | nested))
    except (TypeError, ValueError) as error:
        raise ConfigError(f"[{where}]: {error}") from None


def _stage_kinds() -> dict[str, type[Any]]:
    from referee.shots import ShotConfig
    from tracking.event_config import EventConfig
    from tracking.rack_fill import RackFillConfig
    from tracking.tracker import TrackerConfig
    from vision.detector import DetectorConfig

    return {
        "detector": DetectorConfig,
        "tracker": TrackerConfig,
        "events": EventConfig,
        "shots": ShotConfig,
        "rack_fill": RackFillConfig,
    }


SEARCH_SETTINGS = (
    "lost_search_every_s",
    "lost_ball_speed_mm_s",
    "lost_cue_wait_s",
    "lead_hint_radii",
    "reach_speed_mm_s",
    "reach_max_radii",
    "struck_lost_s",
    "lead_step_radii",
    "knock_corridor_s",
)
"""`PipelineConfig`'s fields that say where the detector looks, set in ``[search]``."""


def _search(values: Any) -> dict[str, Any]:
    """The ``[search]`` section's settings, each a number."""
    if not isinstance(values, dict):
        raise ConfigError("[search] must be a table of settings")
    unknown = sorted(set(values) - set(SEARCH_SETTINGS))
    if unknown:
        raise ConfigError(
            f"unknown setting search.{unknown[0]}; known: {', '.join(sorted(SEARCH_SETTINGS))}"
        )
    for name, value in values.items():
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ConfigError(f"search.{name} must be a number, got {value!r}")
    return {name: float(value) for name, value in values.items()}


def pipeline_config_from_dict(data: dict[str, Any], base: Path | None = None) -> PipelineConfig:
    """Build a PipelineConfig from the parsed TOML document; a relative ``detector_model``
    is taken from ``base`` (the config file's folder), else from the working directory."""
    kinds = _stage_kinds()
    known = {*kinds, "calls", "search"}
    known |= {"full_search_every_frames", "full_search_every_s", "detector_model"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(
            f"unknown section or setting {unknown[0]!r}; known: {', '.join(sorted(known))}"
        )
    stages = {name: _build(kind, data[name], name) for name, kind in kinds.items() if name in data}
    calls = dict(data.get("calls", {}))
    rules = _build(RulesConfig, calls.pop("rules", {}), "calls.rules")
    call_config = _build(CallConfig, {**calls, "rules": rules}, "calls")
    model = _detector_model(data.get("detector_model"), base)
    search = _search(data.get("search", {}))
    return PipelineConfig(
        **stages, calls=call_config, **_full_search(data), **search, detector_model=model
    )


def _full_search(data: dict[str, Any]) -> dict[str, Any]:
    """The regular whole-table search's settings, checked."""
    defaults = PipelineConfig()
    every = data.get("full_search_every_frames", defaults.full_search_every_frames)
    if not isinstance(every, int) or isinstance(every, bool) or every < 0:
        raise ConfigError(f"full_search_every_frames must be a whole number >= 0, got {every!r}")
    period = data.get("full_search_every_s", defaults.full_search_every_s)
    if not isinstance(period, int | float) or isinstance(period, bool) or not period >= 0:
        raise ConfigError(f"full_search_every_s must be a number of seconds >= 0, got {period!r}")
    return {"full_search_every_frames": every, "full_search_every_s": float(period)}


def _detector_model(value: Any, base: Path | None) -> str | None:
    """The learned detector's .onnx path, checked to exist (None: the classical detector)."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.endswith(".onnx"):
        raise ConfigError(f"detector_model must be the path of an .onnx file, got {value!r}")
    path = Path(value).expanduser()
    if not path.is_absolute() and base is not None:
        path = base / path
    if not path.is_file():
        raise ConfigError(f"detector_model {value!r}: no such file ({path})")
    return str(path)


def load_pipeline_config(path: str | Path) -> PipelineConfig:
    """Read a TOML pipeline config; raises ConfigError naming the file and the problem."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except OSError as error:
        raise ConfigError(f"cannot read config {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}") from None
    try:
        return pipeline_config_from_dict(data, Path(path).parent)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None
