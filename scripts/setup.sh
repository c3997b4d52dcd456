#!/usr/bin/env bash
# Sets up tenball in ./.venv: the package with its test and synthetic-footage extras.
# Safe to run again. Usage: bash scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev,synth,onnx]'
# Every pooltool-billiards release after 0.3.3 pins a panda3d build that is not on the
# registry; its real requirements are in the `synth` extra above, so install it without deps.
.venv/bin/python -m pip install --quiet --no-deps 'pooltool-billiards==0.6.0'
