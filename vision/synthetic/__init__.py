"""Synthetic ten-ball footage with exact physics truth.

- `physics`: pooltool shots converted to the table frame (design.md §3).
- `shots`, `plan`, `fouls`: the shot kinds, the stroke search, a planned rack, scripted fouls.
- `timeline`, `scene`: the rack sampled per frame (positions, spins, orientations, overlays).
- `render`, `table_image`, `balls`, `cameras`, `nuisances`: the renderer through
  `calibration.camera.CameraModel`.
- `truth`, `facts`, `clip`, `video`: the truth files of design.md §5 and `tenball synth`.
- `source.SyntheticSource`: a frame source; `truth_detector.TruthDetector`: a fake detector.

Frame timing: frame k is the instant t = k / fps; an event carries its exact time and the
frame at or just after it (`truth.frame_at_or_after`).
"""
