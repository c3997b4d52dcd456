"""The real parts the service drives by default: the FFB engine, vision sources, the pipeline.

Kept apart from the app so that the app (and its tests) can run with any engine, any frame
source and any pipeline that speak the small protocols of `session`, `capture` and `worker`.
Heavy imports happen when a part is built, not when this module is imported.
"""

from __future__ import annotations

from typing import Any

from referee.live.capture import FrameSource
from referee.live.runtime import PipelineFactory, SourceOpener
from referee.live.session import RulesBackend
from referee.live.settings import LiveSettings
from vision.types import Frame

NO_SOURCE = frozenset({"", "none"})


def rules() -> RulesBackend:
    """The FFB ten-ball rules engine with its default options."""
    from referee.live.rules_backend import EngineRules

    return EngineRules()


def source_opener(settings: LiveSettings) -> SourceOpener | None:
    """Opens `settings.source` with vision.sources (None when the source is "none")."""
    spec = settings.source.strip()
    if spec.lower() in NO_SOURCE:
        return None

    def open_it() -> FrameSource:
        from vision.sources import open_source

        source: FrameSource = open_source(spec)
        return source

    return open_it


def pipeline_factory(settings: LiveSettings) -> PipelineFactory:
    """Builds referee.pipeline.Pipeline from the calibration file, or finds the table.

    Without `settings.calibration` the table (of size `settings.table`) is found in the first
    frame the pipeline gets; when it is not found the worker tries again a little later.
    """

    def make(frame: Frame) -> Any:
        from referee.pipeline import Pipeline

        if settings.calibration is not None:
            from calibration.io import load_calibration

            calibration = load_calibration(settings.calibration)
        else:
            from calibration.scale import find_sized_table, table_choice

            finding = find_sized_table([frame.image], table_choice(settings.table))
            calibration = finding.calibration
        return Pipeline(calibration)

    return make
