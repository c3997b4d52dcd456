"""The learned ball detector: a small YOLO-style network run with onnxruntime.

- `detector`: `LearnedBallDetector(model, calibration, config)`, same `detect` as
  `vision.detector.BallDetector`.
- `postprocess`: letterbox, decode, NMS (numpy only).
- `scenes`, `dataset`: rendered frames with exact boxes; a YOLO-format training set.
- `train`: training and ONNX export with ultralytics (the `train` extra).
- `evaluate`, `compare`: both detectors side by side.
"""
