#!/usr/bin/env bash
# Sets up tenball in ./.venv: the package with its test, synthetic-footage and ONNX extras.
# Safe to run again. Usage: bash scripts/setup.sh
#
# Browser tests (report, overlay, operator page) use Debian's chromium. When run as root on a
# Debian-like system without it (as in CI), this installs it; elsewhere those tests skip and
# say why.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing Debian's chromium for the browser tests" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) \
        >/dev/null || echo "setup: could not install chromium; browser tests will be skipped" >&2
fi

python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev,synth,onnx]'
# Every pooltool-billiards release after 0.3.3 pins a panda3d build that is not on the
# registry; its real requirements are in the `synth` extra above, so install it without deps.
.venv/bin/python -m pip install --quiet --no-deps 'pooltool-billiards==0.6.0'
