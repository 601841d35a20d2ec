# SPDX-License-Identifier: GPL-2.0-only
"""Which lab, and its token: from the command line or lavacli's identities file
($XDG_CONFIG_HOME/lavacli.yaml, by default ~/.config/lavacli.yaml), never from the repository.

LAB is a URL (http://lava.example.org; the token from --lab-token or from the identity whose
uri is that server), the name of an identity in the file, or `local`: the identity `make lab`
writes for the lab it stands up on this machine.
"""
import os
import re

LOCAL = "local"
LOCAL_IDENTITY = "rtthrottle-lab"


class IdentityError(Exception):
    """LAB names no lab we can find; the message says why."""


def identities_path():
    return os.path.expanduser(os.path.join(os.environ.get("XDG_CONFIG_HOME", "~/.config"), "lavacli.yaml"))


def read_identities(path):
    """{name: {uri, username, token, ...}} of lavacli's file; {} when there is none."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return {}
    import yaml  # only here: a lab given by URL and token needs no YAML module
    doc = yaml.safe_load(text) or {}
    if not isinstance(doc, dict):
        raise IdentityError(f"{path}: not a mapping of identities")
    return {name: value for name, value in doc.items() if isinstance(value, dict)}


def base_url(uri):
    """The server of an identity's uri (lavacli keeps the XML-RPC endpoint, .../RPC2)."""
    return re.sub(r"/RPC2/?$", "", uri.rstrip("/")).rstrip("/")


def resolve(lab, token=None, path=None):
    """(server URL, token or None, what to call it) of LAB."""
    path = path or identities_path()
    if re.match(r"https?://", lab):
        url = base_url(lab)
        if token is None:
            for ident in read_identities(path).values():
                if base_url(str(ident.get("uri", ""))) == url:
                    token = ident.get("token")
                    break
        return url, token, url
    name = LOCAL_IDENTITY if lab == LOCAL else lab
    found = read_identities(path)
    if name not in found:
        hint = " (make lab writes it)" if lab == LOCAL else ""
        raise IdentityError(f"LAB={lab}: no identity {name!r} in {path}{hint}; "
                            f"identities there: {', '.join(sorted(found)) or 'none'}")
    ident = found[name]
    if not ident.get("uri"):
        raise IdentityError(f"LAB={lab}: identity {name!r} in {path} has no uri")
    return base_url(str(ident["uri"])), token or ident.get("token"), f"{name} ({base_url(str(ident['uri']))})"
