"""Pipeline settings from TOML: every section, and typos named rather than ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.pipeline_config import ConfigError, load_pipeline_config
from vision.identify_config import IdentifierConfig

GOOD = """
full_search_every_frames = 30
[tracker]
measurement_std_mm = 3.0
[calls]
review_below_confidence = 0.8
[calls.rules]
option_on_any_wrongful_pocket = true
"""


def test_a_config_file_sets_nested_stage_options(tmp_path: Path) -> None:
    path = tmp_path / "pipeline.toml"
    path.write_text(GOOD)
    config = load_pipeline_config(path)
    assert config.full_search_every_frames == 30
    assert config.full_search_every_s == 1.0  # not given: the default
    assert config.tracker is not None and config.tracker.measurement_std_mm == 3.0
    assert config.detector is None  # not given: the detector's defaults
    assert config.calls.review_below_confidence == 0.8
    assert config.calls.rules.option_on_any_wrongful_pocket is True


def test_a_config_file_sets_a_stage_setting_nested_two_deep(tmp_path: Path) -> None:
    """[detector.identifier] sets the identifier inside the detector's settings; the rest of
    both keep their defaults, and a misspelt nested key is named with its whole path."""
    path = tmp_path / "pipeline.toml"
    path.write_text(
        "[detector]\npocket_holes = true\n[detector.identifier]\nlight_prior_balls = 50.0\n"
    )
    config = load_pipeline_config(path)
    assert config.detector is not None and config.detector.pocket_holes is True
    assert config.detector.identifier.light_prior_balls == 50.0
    assert config.detector.identifier.chromatic_share == IdentifierConfig().chromatic_share
    path.write_text("[detector.identifier]\nlight_prior_ball = 50.0\n")
    with pytest.raises(ConfigError, match=r"detector\.identifier\.light_prior_ball"):
        load_pipeline_config(path)


def test_a_config_file_sets_the_full_search_period_in_seconds(tmp_path: Path) -> None:
    path = tmp_path / "pipeline.toml"
    path.write_text("full_search_every_s = 0.5\n")
    config = load_pipeline_config(path)
    assert (config.full_search_every_s, config.full_search_every_frames) == (0.5, 0)


def test_a_config_file_sets_where_the_detector_looks(tmp_path: Path) -> None:
    """[search] sets the search plan's settings; the others keep their defaults."""
    path = tmp_path / "pipeline.toml"
    path.write_text("[search]\nlost_cue_wait_s = 0.1\nknock_corridor_s = 0\n")
    config = load_pipeline_config(path)
    assert (config.lost_cue_wait_s, config.knock_corridor_s) == (0.1, 0.0)
    assert config.lead_step_radii == 1.5


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[tracker]\nmeasurment_std_mm = 3.0\n", "tracker.measurment_std_mm"),
        ("[trackr]\n", "'trackr'"),
        ("[calls.rules]\nvariant = 'snooker'\n", "calls.rules"),
        ("full_search_every_frames = -1\n", "full_search_every_frames"),
        ("full_search_every_s = -0.5\n", "full_search_every_s"),
        ("full_search_every_s = 'often'\n", "full_search_every_s"),
        ("[tracker\n", "not valid TOML"),
        ("detector_model = 'absent.onnx'\n", "detector_model 'absent.onnx': no such file"),
        ("detector_model = 'weights.pt'\n", "detector_model must be the path of an .onnx"),
        ("[search]\nlost_cue_wait = 0.1\n", "search.lost_cue_wait"),
        ("[search]\nlead_step_radii = 'far'\n", "search.lead_step_radii must be a number"),
    ],
    ids=[
        "misspelt-field",
        "misspelt-section",
        "bad-value",
        "negative",
        "negative-seconds",
        "seconds-not-a-number",
        "not-toml",
        "model-absent",
        "model-not-onnx",
        "search-misspelt",
        "search-not-a-number",
    ],
)
def test_a_bad_config_is_named(tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / "pipeline.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=named.replace(".", r"\.").replace("[", r"\[")):
        load_pipeline_config(path)


def test_a_learned_detector_is_found_beside_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    model = tmp_path / "models" / "ball-detector.onnx"
    model.write_bytes(b"onnx")
    path = tmp_path / "pipeline.toml"
    path.write_text('detector_model = "models/ball-detector.onnx"\n')

    config = load_pipeline_config(path)

    assert config.detector_model == str(model)
    assert load_pipeline_config(tmp_path / "pipeline.toml").detector is None


def test_no_detector_model_keeps_the_classical_detector(tmp_path: Path) -> None:
    path = tmp_path / "pipeline.toml"
    path.write_text(GOOD)
    assert load_pipeline_config(path).detector_model is None
