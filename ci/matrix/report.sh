# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash
# Sourced in the guest (busybox sh) by ci/matrix/init and, in a LAVA job, by ci/lava/rtthrottle.sh
# (both at /usr/share/rtthrottle/ in the ramdisk): the scheduler facts only a booted kernel can
# show, and files sent back over the serial console framed as
#   RTT-MATRIX-BEGIN name bytes sha256 / base64 lines / RTT-MATRIX-END name
# which the host reads with ci/matrix/guest.py's Console (from QEMU's output or a LAVA job log).

fact() { printf '%s=%s\n' "$1" "$2" >> "$facts"; }

# write_facts FILE: what the kernel is and how its scheduler is set before rtthrottle runs.
write_facts() {
	facts=$1
	fact release "$(uname -r)"
	fact version "$(uname -v)"
	fact cpus "$(grep -c '^processor' /proc/cpuinfo)"
	fact cmdline "$(cat /proc/cmdline)"
	fact clocksource "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	fact sched_rt_runtime_us "$(cat /proc/sys/kernel/sched_rt_runtime_us)"
	fact sched_rt_period_us "$(cat /proc/sys/kernel/sched_rt_period_us)"
	fact cgroup_cpu_v1 "$(test -d /sys/fs/cgroup/cpu && echo yes || echo no)"
	fact cgroup_rt_runtime_us "$(cat /sys/fs/cgroup/cpu/cpu.rt_runtime_us 2>/dev/null)"
	fact cgroup_cpuacct_v1 "$(test -f /sys/fs/cgroup/cpuacct/cpuacct.usage_percpu && echo yes || echo no)"
	fact debugfs "$(grep -q ' /sys/kernel/debug debugfs' /proc/mounts && echo yes || echo no)"
	fact tracefs "$(grep -q ' /sys/kernel/tracing tracefs' /proc/mounts && echo yes || echo no)"
	# The host's dynamic build brings libtracefs (the sched_switch trace), and cyclictest when rt-tests is there.
	fact rtthrottle_libs "$(test -d /lib/x86_64-linux-gnu && echo dynamic || echo static)"
	fact cyclictest "$(command -v cyclictest || echo none)"
	fact sched_features "$(cat /sys/kernel/debug/sched/features 2>/dev/null || cat /sys/kernel/debug/sched_features 2>/dev/null)"
	fact preempt "$(cat /sys/kernel/debug/sched/preempt 2>/dev/null)"
	fact realtime "$(cat /sys/kernel/realtime 2>/dev/null)"
	for d in /sys/kernel/debug/sched/fair_server/cpu*; do
		[ -d "$d" ] || continue
		fact "fair_server_${d##*/}_runtime_ns" "$(cat "$d/runtime")"
		fact "fair_server_${d##*/}_period_ns" "$(cat "$d/period")"
	done
}

# write_dmesg FILE: the kernel's lines about throttling, clocks and trouble.
write_dmesg() {
	dmesg | grep -iE 'throttl|sched:|clocksource|tsc|lockup|stall|BUG|WARNING|Call Trace' > "$1"
}

# send FILE NAME: FILE framed on the console as NAME (or a line saying it is missing).
send() {
	[ -f "$1" ] || { echo "matrix-guest: no $2"; return; }
	echo "RTT-MATRIX-BEGIN $2 $(wc -c < "$1") $(sha256sum "$1" | cut -d' ' -f1)"
	base64 "$1"
	echo "RTT-MATRIX-END $2"
}
