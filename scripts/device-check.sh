#!/usr/bin/env bash
# The CUDA half of opgen, proven on a GPU machine: scripts/device_check.py
# (docs/device-check.md). Run with the Python that holds the torch to test
# (on the device: its python3).
exec "${PYTHON:-python3}" "$(dirname "$0")/device_check.py" "$@"
