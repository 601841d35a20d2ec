# SPDX-License-Identifier: GPL-2.0-only
"""A run that changed the fair server is killed mid-window and its guardian puts the fair server
back, in a guest: this host's debugfs refuses the fair server's files (kernel lockdown) and
Debian's 6.12.118 loses its servers' deadline bandwidth at boot (rtthrottle then skips every
fair-server policy), so the test boots Debian's linux-source-6.12 built with RT group scheduling
and mainline's fix for that (PATCH; ci/matrix/kbuild.py: built once, ~5.5 min, cached in
/var/cache/rtthrottle-kernels) under QEMU (TCG). In the guest a run of `half` with the fair
server at 10 ms of every second is sent SIGKILL once both are in force and its hog runs; the
guest reads back what the guardian left. A second run sets the measured CPU's server only and is
killed with its guardian; `rtthrottle restore` puts back what the state file names. About 15 s
with the kernel cached."""
import os
import shutil
import tempfile

import rtt

PATCH = os.path.join(rtt.ROOT, "ci", "kernel-patches", "fair-server-bandwidth-kept-on-domain-rebuild.patch")
FS = "/sys/kernel/debug/sched/fair_server"
# What the guest's init runs instead of `rtthrottle run`; key=value lines come back as script.txt.
# RT threads of ours: the run's processes all execute /bin/rtthrottle; policy is stat field 41.
SCRIPT = f"""
fs={FS}
knobs() {{
	echo "$1 sysctl=$(cat /proc/sys/kernel/sched_rt_runtime_us) cgroup=$(cat /sys/fs/cgroup/cpu/cpu.rt_runtime_us)" \\
		"fs0=$(cat $fs/cpu0/runtime)/$(cat $fs/cpu0/period) fs1=$(cat $fs/cpu1/runtime)/$(cat $fs/cpu1/period)"
}}
rt_ours() {{
	for s in /proc/[0-9]*/task/[0-9]*/stat; do
		[ "$(readlink "${{s%/task/*}}/exe" 2>/dev/null)" = /bin/rtthrottle ] || continue
		case "$(sed 's/.*) //' "$s" 2>/dev/null | cut -d' ' -f39)" in 1|2|6) echo "$s";; esac
	done
}}
knobs before
/bin/rtthrottle run --scenario fifo-hog-share --policy half --fair-server 10ms/1s --duration 8 \\
	--probe-seconds 0 --noise-seconds 0.5 --quiet --output /tmp/r.json > /tmp/run.log 2>&1 &
pid=$!
# Polls of 0.1 s, at most $1, until the fair server on CPU 1 reads $2, the sysctl $3 and an RT
# task of ours runs ($4 = -n) or none does ($4 = -z); n: the polls taken.
wait_for() {{
	n=0
	while [ $n -lt $1 ]; do
		[ "$(cat $fs/cpu1/runtime)" = $2 ] && [ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = $3 ] &&
			[ $4 "$(rt_ours)" ] && break
		usleep 100000
		n=$((n + 1))
	done
}}
wait_for 300 10000000 500000 -n
knobs applied
echo "rt_before_kill rt=$(rt_ours | wc -l)"
kill -9 $pid
wait_for 50 50000000 950000 -z
echo "restored polls=$n"
knobs after
echo "rt_after rt=$(rt_ours | wc -l) state=$(test -e /run/rtthrottle/state.json && echo present || echo gone)"
# The measured CPU's (1) server only; then the run and its guardian are both killed (stopped
# first, so neither restores) and `rtthrottle restore` puts back what the state file names.
/bin/rtthrottle run --scenario fifo-hog-share --policy half --fair-server 10ms/1s --fair-server-cpus measured \
	--duration 8 --probe-seconds 0 --noise-seconds 0.5 --quiet --output /tmp/r2.json > /tmp/run2.log 2>&1 &
wait_for 300 10000000 500000 -n
knobs measured_applied
ours() {{ for p in /proc/[0-9]*; do [ "$(readlink $p/exe 2>/dev/null)" = /bin/rtthrottle ] && echo ${{p#/proc/}}; done; }}
for p in $(ours); do kill -STOP $p; done
for p in $(ours); do kill -9 $p; done
usleep 500000
knobs killed_all
echo "state_cpus $(tr -d ' \n' < /run/rtthrottle/state.json | grep -o '"fair_server_cpus":\[[0-9,]*\]' | sed 's/.*:/cpus=/')"
/bin/rtthrottle restore > /tmp/restore.log 2>&1
echo "restore_cmd rc=$? on_cpu1=$(grep -c 'ns on CPU 1$' /tmp/restore.log)"
knobs restored_by_command
echo "rt_after_restore rt=$(rt_ours | wc -l) state=$(test -e /run/rtthrottle/state.json && echo present || echo gone)"
echo "--- run.log"
tail -n 15 /tmp/run.log
echo "--- restore.log"
cat /tmp/restore.log
"""
_run = {}


def _lines(text):
    """{label: {key: value}} of the script's 'label key=value ...' lines."""
    out = {}
    for line in text.split("--- run.log")[0].splitlines():
        words = line.split()
        if words and all("=" in w for w in words[1:]):
            out[words[0]] = dict(w.split("=", 1) for w in words[1:])
    return out


def _guest():
    if "out" in _run:
        return _run["out"], _run["text"]
    rtt.guest_ready("mknod for /dev/console in the guest's initramfs")
    import guest
    import kbuild
    try:
        version, _ = kbuild.source_version("6.12")
    except guest.MatrixError as exc:
        raise rtt.Skip(str(exc))
    built = kbuild.build("6.12", "rt-group", (PATCH,), kbuild.DEFAULT_CACHE, os.cpu_count())
    work = tempfile.mkdtemp(prefix="rtt-fs-guest-")
    try:
        base = guest.base_initramfs(work, rtt.BINARY, None, script=SCRIPT)
        initrd = guest.kernel_initramfs(work, base, built["config_path"], "fs-guest")
        # The test runner holds the machine lock already.
        console, status, reason, _ = guest.boot("fs-guest", built["vmlinuz"], initrd, "tcg", 300, 180,
                                                os.path.join(work, "console.log"), lock=False)
        assert status == "ok", f"linux-source-6.12 {version} (rt-group, the fix): {status}: {reason}"
        text = console.files.get("script.txt", b"").decode("utf-8", "replace")
    finally:
        shutil.rmtree(work)
    _run.update(out=_lines(text), text=text)
    return _run["out"], text


def test_guest_run_applies_the_fair_server_with_the_policy():
    out, text = _guest()
    before, applied = out.get("before", {}), out.get("applied", {})
    assert before.get("fs1") == "50000000/1000000000" and before.get("sysctl") == "950000", text
    # The run wrote both: the policy's RT ratio and the fair server on every CPU, a hog running.
    assert applied.get("sysctl") == "500000" and applied.get("cgroup") == "500000", text
    assert applied.get("fs0") == applied.get("fs1") == "10000000/1000000000", text
    assert int(out.get("rt_before_kill", {}).get("rt", 0)) >= 1, text


def test_guardian_restores_the_fair_server_after_sigkill_mid_window():
    out, text = _guest()
    before, applied, after = out.get("before", {}), out.get("applied", {}), out.get("after", {})
    # Killed with its changes in force, or this would restore nothing.
    assert applied.get("fs1") == "10000000/1000000000" and int(out["rt_before_kill"]["rt"]) >= 1, text
    # Everything back, within 5 s of the SIGKILL (50 polls of 0.1 s, slow under emulation).
    assert after and {k: after[k] for k in before} == before, text
    assert int(out["restored"]["polls"]) < 50, text
    assert out["rt_after"]["rt"] == "0" and out["rt_after"]["state"] == "gone", text


def test_measured_cpus_only_and_restore_puts_back_those():
    out, text = _guest()
    before, applied = out.get("before", {}), out.get("measured_applied", {})
    # Only the measured CPU's server changed, with the policy's RT ratio in force.
    assert applied.get("fs1") == "10000000/1000000000" and applied.get("sysctl") == "500000", text
    assert applied.get("fs0") == before.get("fs0") == "50000000/1000000000", text
    # Run and guardian killed before either restored: the changes stood, the state file named CPU 1.
    assert out.get("killed_all", {}).get("fs1") == "10000000/1000000000", text
    assert out.get("state_cpus", {}).get("cpus") == "[1]", text
    cmd, after = out.get("restore_cmd", {}), out.get("restored_by_command", {})
    assert cmd.get("rc") == "0" and cmd.get("on_cpu1") == "1", text
    assert after and {k: after[k] for k in before} == before, text
    assert out["rt_after_restore"] == {"rt": "0", "state": "gone"}, text
