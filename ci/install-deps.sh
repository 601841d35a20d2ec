#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs what rtthrottle needs to build, run and test (Debian packages). Idempotent:
# apt-get runs only when something is missing. --kernel-build: instead, what building kernels
# from Debian's linux-source needs (make mutants, ci/kernels-source.list, ci/bisect-step.sh).
set -euo pipefail

packages=(gcc make pkg-config libjson-c-dev libnuma-dev zlib1g-dev python3 util-linux procps valgrind)
packages+=(python3-matplotlib chromium)  # plots, the HTML report and its test
packages+=(libtracefs-dev libtraceevent-dev)  # sched_switch ground truth (make WITH_TRACEFS=0 without)
packages+=(rt-tests stress-ng rtla)  # cyclictest (make bench), hackbench and stress-ng (run --load), rtla (timerlat)
packages+=(clang libclang-rt-14-dev)  # make fuzz: libFuzzer + ASan/UBSan runtimes
packages+=(libxml2-utils python3-jsonschema mandoc man-db)  # tests of export and the man page
packages+=(qemu-system-x86 busybox-static cpio)  # make matrix: Debian kernels under QEMU
packages+=(lava-dispatcher)  # make lava: lava-run runs the LAVA job here (the test validates it)
packages+=(debhelper dpkg-dev lintian)  # make deb: dpkg-buildpackage and lintian
if [ "${1:-}" = "--kernel-build" ]; then
	packages=(linux-source-6.12 gcc make flex bison bc libelf-dev xz-utils patch)
elif [ $# -gt 0 ]; then
	echo "install-deps: unknown argument '$1' (--kernel-build or nothing)" >&2
	exit 2
fi
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing ${missing[*]}; run as root (or: sudo apt-get install ${missing[*]})" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# lava-dispatcher brings lava-worker, a service that would poll a LAVA server; lava-run needs none.
if [[ " ${missing[*]} " == *" lava-dispatcher "* ]] && command -v systemctl >/dev/null; then
	systemctl disable --now lava-worker.service >/dev/null 2>&1 || true
fi
