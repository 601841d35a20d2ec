# SPDX-License-Identifier: GPL-2.0-only
"""A LAVA lab's REST API (/api/v0.2/, LAVA 2020.x and later), with the token as the header
"Authorization: Token <t>". Stdlib only (Debian /usr/bin/python3).

Every failure to talk to the lab is a LabError naming the lab and what went wrong; `usage` is set
where the caller's input is at fault (an unreachable server, a refused token, a job the lab
refuses): the client exits 2 then.
"""
import json
import socket
import urllib.error
import urllib.parse
import urllib.request

API = "/api/v0.2/"


class LabError(Exception):
    """Talking to the lab failed; the message names the lab and why."""

    def __init__(self, message, usage=False):
        super().__init__(message)
        self.usage = usage


class Lab:
    def __init__(self, url, token=None, timeout=30):
        self.url = url.rstrip("/")
        self.token, self.timeout = token, timeout

    def request(self, method, path, body=None, params=None):
        """(status, body bytes) of one request; LabError when the server cannot be reached."""
        url = self.url + API + path.lstrip("/")
        if params:
            url += "?" + urllib.parse.urlencode(params)
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()
        except (urllib.error.URLError, socket.timeout, ConnectionError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise LabError(f"{self.url}: cannot reach the LAVA server ({reason})", usage=True) from None

    def call(self, method, path, body=None, params=None, ok=(200,)):
        """The decoded JSON answer; a refused token or another refusal is a LabError."""
        status, raw = self.request(method, path, body, params)
        try:
            doc = json.loads(raw) if raw else {}
        except ValueError:
            doc = {"detail": raw[:200].decode("utf-8", "replace")}
        if status in ok:
            return doc
        detail = doc.get("detail") or doc.get("message") or doc if isinstance(doc, dict) else doc
        if status in (401, 403):
            raise LabError(f"{self.url}: the token is refused ({detail}; HTTP {status} on {path})", usage=True)
        raise LabError(f"{self.url}: {method} {API}{path} answered HTTP {status}: {detail}", usage=status == 400)

    def pages(self, path):
        """Every result of a paginated list."""
        out, params = [], {"limit": 200, "offset": 0}
        while True:
            doc = self.call("GET", path, params=params)
            results = doc.get("results") or []
            out += results
            if not doc.get("next") or not results:
                return out
            params["offset"] += len(results)

    def whoami(self):
        """The user the token belongs to ('' for none); a bad token is refused here."""
        return self.call("GET", "system/whoami/").get("user", "")

    def device_types(self):
        return {d["name"]: d for d in self.pages("devicetypes/")}

    def devices(self):
        return self.pages("devices/")

    def submit(self, definition):
        """The job id of a submitted job definition (YAML text)."""
        doc = self.call("POST", "jobs/", body={"definition": definition}, ok=(200, 201))
        ids = doc.get("job_ids") or []
        if not ids:
            raise LabError(f"{self.url}: the submission gave no job id ({doc})")
        return ids[0]

    def job(self, job_id):
        return self.call("GET", f"jobs/{job_id}/")

    def cancel(self, job_id):
        return self.call("GET", f"jobs/{job_id}/cancel/")

    def suites(self, job_id):
        return self.pages(f"jobs/{job_id}/suites/")

    def tests(self, job_id):
        return self.pages(f"jobs/{job_id}/tests/")

    def log(self, job_id):
        """The job's log as LAVA stores it: a YAML list, one {dt, lvl, msg} a line."""
        status, raw = self.request("GET", f"jobs/{job_id}/logs/")
        if status == 404:
            return ""
        if status != 200:
            raise LabError(f"{self.url}: the log of job {job_id}: HTTP {status}")
        return raw.decode("utf-8", "replace")

    def job_url(self, job_id):
        return f"{self.url}/scheduler/job/{job_id}"
