# SPDX-License-Identifier: GPL-2.0-only
"""The jobs of a lab run: ci/lava/lab-job.yaml.jinja2 rendered once per kernel and repetition for
one device type, and the files each needs where the lab's workers can download them.
"""
import os
import re
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = "lab-job.yaml.jinja2"
DEVICE_TYPES = ("qemu", "x86")      # the template's ways to deploy
# Arguments go into the guest's shell between single quotes, inside a YAML string.
SAFE_ARGS = re.compile(r"^[A-Za-z0-9_.,:=/+ -]*$")


class JobError(Exception):
    """A job cannot be written (bad arguments, no jinja2); the message says which."""


def render(device_type, fields):
    """The job definition (YAML text) for device_type with fields: label, kernel_name,
    kernel_url, ramdisk_url (qemu) or rootfs_url (x86), run_args, job_minutes, test_minutes."""
    if device_type not in DEVICE_TYPES:
        raise JobError(f"device type {device_type!r}: the job template knows {', '.join(DEVICE_TYPES)}")
    if not SAFE_ARGS.match(fields.get("run_args", "")):
        raise JobError(f"rtthrottle run arguments {fields['run_args']!r}: only letters, digits, spaces and "
                       "_ . , : = / + - go into a job")
    try:
        import jinja2
    except ImportError:
        raise JobError("no python3-jinja2 (apt-get install python3-jinja2)") from None
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE), undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    try:
        return env.get_template(TEMPLATE).render(device_type=device_type, **fields)
    except jinja2.UndefinedError as exc:
        raise JobError(f"{TEMPLATE}: {exc}") from None


def rootfs_tarball(cpio_path, out):
    """The ramdisk's files as a .tar.gz (an NFS root for a board that boots over the network)."""
    stage = out + ".d"
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(stage)
    with open(cpio_path, "rb") as f:
        subprocess.run(["cpio", "-id", "--quiet", "--no-absolute-filenames"], cwd=stage, stdin=f, check=True)
    subprocess.run(["tar", "-czf", out, "--numeric-owner", "--owner=0", "--group=0", "-C", stage, "."], check=True)
    shutil.rmtree(stage, ignore_errors=True)
    return out


class Artifacts:
    """Where the workers download a run's kernels and ramdisks: file:// URLs for a lab on this
    machine, or a folder a web server publishes (--artifact-dir) and its URL (--artifact-url)."""

    def __init__(self, directory=None, url=None):
        self.directory, self.url = directory, url.rstrip("/") if url else None

    def publish(self, path, name):
        """The URL of path, copied as name into the published folder when there is one."""
        if not self.url:
            return f"file://{os.path.abspath(path)}"
        os.makedirs(self.directory, exist_ok=True)
        dest = os.path.join(self.directory, name)
        shutil.copyfile(path, dest)
        os.chmod(dest, 0o644)
        return f"{self.url}/{name}"
