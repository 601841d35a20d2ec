#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# One step of `git bisect run` on a Linux kernel tree: builds the tree with `make tinyconfig` +
# ci/kconfig/base.config + a config fragment (--config, default rt-group), boots it under QEMU
# with a static rtthrottle and runs one scenario (default: fifo-hog-share at default and half).
# Exits 0 good, 1 bad, 125 skip (no build, no boot, or rtthrottle could not judge), 128 bad
# usage (stops the bisection). Run it from the kernel tree:
#   git bisect start BAD GOOD
#   git bisect run /path/to/rtthrottle/ci/bisect-step.sh [--config rt-group] [-- RUN ARGS]
# Every option: ci/bisect-step.sh --help (ci/matrix/bisect_step.py); --lab URL boots it as a job on
# that LAVA lab (LAB=URL in the environment does the same).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x "$here/build-static/rtthrottle" ]; then
	make -C "$here" --no-print-directory static >&2 || { echo "bisect-step: make static failed" >&2; exit 128; }
fi
# LAB (and LAB_TOKEN) in the environment: as make matrix takes them.
if [ -n "${LAB:-}" ]; then
	if [ -n "${LAB_TOKEN:-}" ]; then set -- --lab-token "$LAB_TOKEN" "$@"; fi
	set -- --lab "$LAB" "$@"
fi
exec /usr/bin/python3 "$here/ci/matrix/bisect_step.py" "$@"
