# SPDX-License-Identifier: GPL-2.0-only
"""The LAVA lab client (ci/lava/lab.py) against a fake LAVA REST server (http.server in this
process): the jobs it writes, submission, following, collecting the framed results file from a
job's log, make matrix's table, and the faults: a server that is not there or stops, a refused
token, an unknown device type, a job LAVA ends incomplete, a cancelled job, an interrupted run.
No root, nothing booted."""
import base64
import contextlib
import hashlib
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

import rtt

LAVA_DIR = os.path.join(rtt.ROOT, "ci", "lava")
FIXTURE = os.path.join(rtt.ROOT, "tests", "fixtures", "quick-1rep.json")
TOKEN = "good-token"


def _modules():
    for d in (os.path.join(rtt.ROOT, "ci", "matrix"), LAVA_DIR):
        if d not in sys.path:
            sys.path.insert(0, d)
    try:
        import yaml  # noqa: F401
    except ImportError:
        raise rtt.Skip("no python3-yaml")
    import lab
    import lab_follow
    import lab_job
    import matrix
    import summary
    return lab, lab_follow, lab_job, matrix, summary


def framed(name, data):
    body = base64.encodebytes(data).decode().splitlines()
    return [f"RTT-MATRIX-BEGIN {name} {len(data)} {hashlib.sha256(data).hexdigest()}"] + body + \
        [f"RTT-MATRIX-END {name}"]


def job_log(results):
    """A LAVA server's job log: the guest's console as target lines, framed files at the end."""
    lines = ["Linux version 6.1.0-57-amd64", "ok 1 fifo-hog-share.default", "<LAVA_SIGNAL_TESTCASE ...>"]
    lines += framed("facts.txt", b"release=6.1.0-57-amd64\nrtthrottle_exit=0\n")
    lines += framed("results.json", results) + ["RTT-MATRIX-DONE 0"]
    out = ['- {"dt": "2026-12-07T10:00:00", "lvl": "info", "msg": "start: 0 deploy"}']
    out += ['- ' + json.dumps({"dt": "2026-12-07T10:00:01", "lvl": "target", "msg": line}) for line in lines]
    return "\n".join(out) + "\n"


class FakeLab:
    """The REST API as LAVA 2023.01 answers it, with each job's fate set by its label:
    outcome[label] = 'Complete' (default), 'Incomplete' or 'Canceled'."""

    def __init__(self, outcome=None, device_types=("qemu",)):
        self.outcome, self.device_types = outcome or {}, device_types
        self.jobs, self.cancelled, self.polls = {}, [], {}
        with open(FIXTURE, "rb") as f:
            self.results = f.read()
        state = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def answer(self, status, doc, raw=None):
                body = raw.encode() if raw is not None else json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def authorised(self):
                auth = self.headers.get("Authorization")
                if auth and auth != f"Token {TOKEN}":
                    self.answer(403, {"detail": "Invalid token."})
                    return None
                return bool(auth)

            def do_GET(self):
                who = self.authorised()
                if who is None:
                    return
                self.answer(*state.get(self.path.split("?")[0], who))

            def do_POST(self):
                who = self.authorised()
                if who is None:
                    return
                if not who:
                    return self.answer(403, {"detail": "Authentication credentials were not provided."})
                doc = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                job_id = len(state.jobs) + 1
                label = re.search(r'rtthrottle.label: "([^"]+)"', doc["definition"]).group(1)
                state.jobs[job_id] = {"label": label, "definition": doc["definition"]}
                self.answer(201, {"message": "job(s) successfully submitted", "job_ids": [job_id]})

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def page(self, results):
        return 200, {"count": len(results), "next": None, "previous": None, "results": results}

    def job_doc(self, job_id):
        """Submitted on the first look, Running on the second, Finished from the third."""
        n = self.polls[job_id] = self.polls.get(job_id, 0) + 1
        label = self.jobs[job_id]["label"]
        health = "Canceled" if job_id in self.cancelled else self.outcome.get(label, "Complete")
        state = "Submitted" if n == 1 else "Running" if n == 2 and job_id not in self.cancelled else "Finished"
        doc = {"id": job_id, "state": state, "health": health if state == "Finished" else "Unknown",
               "actual_device": "qemu01" if state != "Submitted" else None, "failure_comment": None,
               "start_time": "2026-12-07T10:00:00Z", "end_time": "2026-12-07T10:01:40Z"}
        if health == "Incomplete":
            doc["failure_comment"] = "lava-test-shell timed out after 900 seconds"
        return doc

    def get(self, path, who):
        path = path.replace("/api/v0.2/", "/", 1)
        if path == "/system/whoami/":
            return 200, {"user": "tester" if who else ""}
        if path == "/devicetypes/":
            return self.page([{"name": n} for n in self.device_types])
        if path == "/devices/":
            return self.page([{"hostname": f"qemu0{i}", "device_type": "qemu", "health": "Good"} for i in (1, 2)])
        m = re.fullmatch(r"/jobs/(\d+)/(\w*)/?", path)
        if not m or int(m.group(1)) not in self.jobs:
            return 404, {"detail": "Not found."}
        job_id, what = int(m.group(1)), m.group(2)
        if what == "":
            return 200, self.job_doc(job_id)
        if what == "cancel":
            self.cancelled.append(job_id)
            return 200, {"message": "Job cancel signal sent."}
        if what == "suites":
            return self.page([{"id": 1, "name": "lava"}, {"id": 2, "name": "0_rtthrottle"}])
        if what == "tests":
            return self.page([{"name": "job", "suite": 1, "result": "pass", "metadata": ""},
                              {"name": "rtthrottle-run", "suite": 2, "result": "pass"},
                              {"name": "fifo-hog-share.default", "suite": 2, "result": "pass"}])
        if what == "logs":
            return 200, None, job_log(self.results)
        return 404, {"detail": "Not found."}


@contextlib.contextmanager
def scratch():
    tmp = tempfile.mkdtemp(prefix="rtt-lab-")
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp)


@contextlib.contextmanager
def replaced(owner, name, stand_in):
    """owner.name is stand_in for the block; yields what it was."""
    real = getattr(owner, name)
    setattr(owner, name, stand_in)
    try:
        yield real
    finally:
        setattr(owner, name, real)


@contextlib.contextmanager
def fake_lab(**kw):
    lab = FakeLab(**kw)
    try:
        yield lab
    finally:
        lab.stop()


class Args:
    """The options matrix.py's parser leaves for the lab client."""

    def __init__(self, url, **kw):
        self.lab, self.lab_url, self.lab_token, self.lab_name = url, url, TOKEN, url
        self.device_type, self.artifact_dir, self.artifact_url = "qemu", None, None
        self.poll, self.lab_patience, self.timeout, self.no_lock = 0.01, 5, 600, True
        self.binary, self.rtt_args = rtt.BINARY, ["--scenario", "fifo-hog-share", "--duration", "4"]
        self.__dict__.update(kw)


def run_matrix(fake, labels, tmp, **kw):
    """The lab client's part of make matrix on labels, a dummy kernel each; (entries, jobs)."""
    lab, _, _, matrix, _ = _modules()
    args = Args(fake.url, **kw)
    kernel = os.path.join(tmp, "vmlinuz")
    open(kernel, "w").close()
    items = [{"label": label, "vmlinuz": kernel, "config": None, "kernel_name": f"linux-image-{label}",
              "entry": {"label": label, "series": label, "flavour": "amd64"}} for label in labels]
    # No guest is built here: a stand-in ramdisk (the real one needs busybox and mknod). The
    # client's progress lines stay out of the test runner's output.
    with replaced(lab.guest, "base_initramfs", lambda work, binary, rtt_args, config=None: kernel), \
            contextlib.redirect_stderr(io.StringIO()):
        connection = lab.connect(args)
        return lab.run(connection, items, args, tmp, matrix.collect), args


def test_jobs_render_for_qemu_and_an_x86_board_and_validate_against_lavas_schema():
    _, _, lab_job, _, _ = _modules()
    import yaml
    fields = {"label": "6.1", "kernel_name": "linux-image-6.1.0-57-amd64", "job_name": "rtthrottle 6.1",
              "kernel_url": "http://a.example/vmlinuz", "ramdisk_url": "http://a.example/ramdisk.cpio",
              "rootfs_url": "http://a.example/rootfs.tar.gz", "run_args": "--suite quick --duration 4",
              "job_minutes": 25, "test_minutes": 15}
    jobs = {dt: yaml.safe_load(lab_job.render(dt, fields)) for dt in lab_job.DEVICE_TYPES}
    qemu, x86 = jobs["qemu"], jobs["x86"]
    assert qemu["device_type"] == "qemu" and x86["device_type"] == "x86"
    assert qemu["actions"][0]["deploy"]["to"] == "tmpfs" and qemu["actions"][1]["boot"]["method"] == "qemu"
    assert qemu["actions"][0]["deploy"]["images"]["ramdisk"]["url"] == fields["ramdisk_url"]
    assert x86["actions"][0]["deploy"]["to"] == "tftp" and x86["actions"][0]["deploy"]["nfsrootfs"]["url"] == \
        fields["rootfs_url"]
    assert x86["actions"][1]["boot"]["method"] == "ipxe" and x86["actions"][1]["boot"]["commands"] == "nfs"
    for job in jobs.values():
        step = job["actions"][-1]["test"]["definitions"][0]["repository"]["run"]["steps"][0]
        assert step == "/usr/share/rtthrottle/lava/rtthrottle.sh -i true -f true -a '--suite quick --duration 4'"
        assert job["metadata"]["rtthrottle.label"] == "6.1" and job["timeouts"]["job"]["minutes"] == 25
    try:
        from lava_common.schemas import validate
    except ImportError:
        return  # the schema comes with lava-common (ci/install-deps.sh installs lava-dispatcher)
    for job in jobs.values():
        validate(job, strict=True)
    for bad in ("--suite 'quick'", "--suite quick; reboot", "--duration $X"):
        try:
            lab_job.render("qemu", dict(fields, run_args=bad))
            raise AssertionError(f"{bad!r} went into a job")
        except lab_job.JobError as exc:
            assert "arguments" in str(exc)
    try:
        lab_job.render("beaglebone", fields)
        raise AssertionError("an unknown device type rendered")
    except lab_job.JobError as exc:
        assert "beaglebone" in str(exc)


def test_submits_follows_collects_and_writes_make_matrixs_table():
    _, _, _, _, summary = _modules()
    with scratch() as tmp:
        with fake_lab() as fake:
            entries, _ = run_matrix(fake, ["6.1", "6.12"], tmp)
            assert [j["label"] for j in fake.jobs.values()] == ["6.1", "6.12"]
            assert all(n >= 3 for n in fake.polls.values()), fake.polls  # followed until Finished
        doc = rtt.load(FIXTURE)
        want = summary.figures(doc)
        for e in entries:
            assert e["status"] == "ok" and e["guest_exit"] == 0, e
            assert e["guest"]["release"] == "6.1.0-57-amd64"
            assert e["figures"] == want and e["failed_checks"] == summary.failed_checks(doc)
            assert e["lab"]["cases"] == {"pass": 2, "fail": 0, "skip": 0, "unknown": 0}, e["lab"]
            assert e["wall_s"] == 100.0
            for name in (".json", ".job.yaml", ".lava.log", ".console.log"):
                assert os.path.isfile(os.path.join(tmp, e["label"] + name)), name
        # The results file came back byte for byte, and the table is make matrix's.
        with open(os.path.join(tmp, "6.1.json"), "rb") as f, open(FIXTURE, "rb") as g:
            assert f.read() == g.read()
        table = summary.table(entries)
        r = want["results"]
        for label in ("6.1", "6.12"):
            assert re.search(rf"^{re.escape(label)} ", table, re.M), table
            assert f"{label}: {want['checks_passed']} checks passed, {want['checks_failed']} failed" in table
            assert f"results: {r['pass']} pass, {r['fail']} fail, {r['unjudged']} unjudged" in table


def test_an_incomplete_job_is_unjudged_with_lavas_reason_and_a_cancelled_one_keeps_no_results():
    _, _, _, _, summary = _modules()
    with scratch() as tmp:
        with fake_lab(outcome={"slow": "Incomplete", "gone": "Canceled"}) as fake:
            entries, _ = run_matrix(fake, ["slow", "gone", "fine"], tmp)
        by = {e["label"]: e for e in entries}
        assert by["slow"]["status"] == "unjudged" and "timed out after 900 seconds" in by["slow"]["reason"], by["slow"]
        assert by["gone"]["status"] == "cancelled" and "cancelled" in by["gone"]["reason"]
        for label in ("slow", "gone"):
            assert not by[label].get("figures") and not os.path.exists(os.path.join(tmp, f"{label}.json")), label
        assert by["fine"]["status"] == "ok" and by["fine"]["figures"]
        table = summary.table(entries)
        assert "slow: unjudged: LAVA: lava-test-shell timed out after 900 seconds" in table, table
        assert "gone: cancelled: " in table and "fine: " in table


def test_an_interrupted_run_cancels_its_jobs():
    _, lab_follow, _, _, _ = _modules()

    def interrupted(self, deadline_s=None):
        self.poll()
        raise KeyboardInterrupt

    with scratch() as tmp, replaced(lab_follow.Follower, "run", interrupted), fake_lab() as fake:
        try:
            run_matrix(fake, ["6.1", "6.12"], tmp)
            raise AssertionError("the interruption went unnoticed")
        except KeyboardInterrupt:
            pass
        assert sorted(fake.cancelled) == [1, 2], fake.cancelled
        assert not [n for n in os.listdir(tmp) if n.endswith(".json")], os.listdir(tmp)


def lab_check(*argv):
    return subprocess.run(["/usr/bin/python3", os.path.join(LAVA_DIR, "lab.py"), "check"] + list(argv),
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, XDG_CONFIG_HOME=tempfile.gettempdir() + "/rtt-no-lavacli"))


def test_bad_token_unknown_device_type_and_no_server_exit_2_naming_them():
    _modules()
    with fake_lab() as fake:
        ok = lab_check("--lab", fake.url, "--lab-token", TOKEN)
        assert ok.returncode == 0 and "user tester, 2 qemu device(s)" in ok.stderr, ok.stderr
        bad = lab_check("--lab", fake.url, "--lab-token", "stolen")
        assert bad.returncode == 2 and "token is refused" in bad.stderr and fake.url in bad.stderr, bad.stderr
        none = lab_check("--lab", fake.url)
        assert none.returncode == 2 and "no token" in none.stderr, none.stderr
        x86 = lab_check("--lab", fake.url, "--lab-token", TOKEN, "--device-type", "x86")
        assert x86.returncode == 2 and "unknown device type 'x86'" in x86.stderr, x86.stderr
        url = fake.url
    gone = lab_check("--lab", url, "--lab-token", TOKEN)
    assert gone.returncode == 2 and f"{url}: cannot reach the LAVA server" in gone.stderr, gone.stderr
    ident = lab_check("--lab", "local")
    assert ident.returncode == 2 and "no identity 'rtthrottle-lab'" in ident.stderr, ident.stderr


def test_make_matrix_with_a_refused_token_exits_2_before_fetching_a_kernel():
    _modules()
    if not os.access(rtt.BINARY, os.X_OK):
        raise rtt.Skip("no build/rtthrottle (make)")
    with scratch() as out:
        with fake_lab() as fake:
            proc = subprocess.run(["/usr/bin/python3", os.path.join(rtt.ROOT, "ci", "matrix", "matrix.py"),
                                   "--lab", fake.url, "--lab-token", "stolen", "--kernels", "6.1", "--out", out],
                                  capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and "token is refused" in proc.stderr, proc.stderr
        assert "downloading" not in proc.stderr and not any(
            os.path.exists(os.path.join(out, d, "table.txt")) for d in os.listdir(out)), proc.stderr


def test_a_server_that_stops_while_jobs_run_ends_the_run_naming_it():
    lab, lab_follow, _, _, _ = _modules()
    fake = FakeLab()
    poll = lab_follow.Follower.poll

    def stops(self):
        if any(n >= 2 for n in fake.polls.values()):
            fake.stop()
        return poll(self)

    with scratch() as tmp, replaced(lab_follow.Follower, "poll", stops):
        try:
            run_matrix(fake, ["6.1"], tmp, lab_patience=0.2)
            raise AssertionError("the run went on without its lab")
        except lab.LabError as exc:
            assert exc.usage and f"{fake.url}: cannot reach the LAVA server" in str(exc), exc


def test_eta_from_the_finished_jobs():
    _, lab_follow, _, _, _ = _modules()
    assert lab_follow.eta_seconds([], 2, 2, [10, 10], 2) is None
    # Two running for 40 s of a 100 s mean, two queued on two devices: 60 s + one wave of 100 s.
    assert lab_follow.eta_seconds([100], 2, 2, [40, 40], 2) == 160
    assert lab_follow.eta_seconds([100, 120], 0, 0, [], 2) == 0
    assert lab_follow.fmt_eta(160) == "ETA 2 min 40 s"


def test_lab_urls_and_tokens_come_from_lavaclis_identities():
    lab, _, _, _, _ = _modules()
    import lab_identity
    with scratch() as tmp:
        path = os.path.join(tmp, "lavacli.yaml")
        with open(path, "w") as f:
            f.write("rtthrottle-lab:\n  uri: http://127.0.0.1:8000/RPC2\n  username: rtthrottle\n  token: t1\n"
                    "big:\n  uri: https://lava.example.org/RPC2/\n  token: t2\n")
        assert lab_identity.resolve("local", None, path)[:2] == ("http://127.0.0.1:8000", "t1")
        assert lab_identity.resolve("big", None, path)[:2] == ("https://lava.example.org", "t2")
        assert lab_identity.resolve("https://lava.example.org", None, path)[:2] == ("https://lava.example.org", "t2")
        assert lab_identity.resolve("https://other.example.org", "t3", path)[:2] == ("https://other.example.org", "t3")
        try:
            lab_identity.resolve("nowhere", None, path)
            raise AssertionError("an unknown identity resolved")
        except lab_identity.IdentityError as exc:
            assert "nowhere" in str(exc) and "big, rtthrottle-lab" in str(exc)
        assert lab.is_local("http://127.0.0.1:8000") and not lab.is_local("https://lava.example.org")


def test_a_bisect_step_on_the_lab_answers_good_or_skip():
    lab, _, _, _, _ = _modules()
    import bisect_step
    with scratch() as tmp, fake_lab(outcome={"bad1": "Incomplete"}) as fake:
        kernel = os.path.join(tmp, "bzImage")
        open(kernel, "w").close()
        args = Args(fake.url)
        with replaced(lab.guest, "base_initramfs", lambda work, binary, rtt_args, config=None: kernel), \
                contextlib.redirect_stderr(io.StringIO()):
            connection = lab.connect(args)
            answers = {}
            for commit in ("good1", "bad1"):
                console, status, reason, _ = bisect_step.lab_boot(connection, commit, kernel, None, "6.1", args, tmp)
                answers[commit] = (bisect_step.verdict(status, console.done), status)
    # The fixture's run passed: good; LAVA's incomplete job: skip, never "bad".
    assert answers == {"good1": (bisect_step.GOOD, "ok"), "bad1": (bisect_step.SKIP, "unjudged")}, answers
