"""Which code this is: the package's version and the commit of the checkout it was built from.

The version stays 0.1.0 from one update to the next, so alone it told an exhibit updated last week
from one installed a year ago no better than a service still running the code from before an update
(one whose configuration the new code refused). install.sh writes the checkout's commit (with
-dirty when it has changes not committed) into the copy it builds the wheel from, as COMMIT, which
the wheel carries; code run from a checkout asks git.
"""

import functools
import os
import subprocess

from controller import __version__

COMMIT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "commit.txt")


@functools.lru_cache(maxsize=None)
def described():
    """"0.1.0 (commit a1e1a70)", or "0.1.0" where no commit is known (a wheel built without one)."""
    try:
        with open(COMMIT, encoding="ascii") as f:
            commit = f.read().strip()
    except (OSError, ValueError):
        commit = checkout_commit(os.path.dirname(os.path.dirname(COMMIT)))
    return "%s (commit %s)" % (__version__, commit) if commit else __version__


def checkout_commit(top):
    """The commit of the checkout at `top` ("a1e1a70", "a1e1a70-dirty" with changes not committed), or
    "" where it is none or git is missing."""
    if not os.path.exists(os.path.join(top, ".git")):
        return ""
    try:
        return subprocess.run(["git", "-C", top, "describe", "--always", "--dirty", "--abbrev=7"],
                              capture_output=True, encoding="utf-8", errors="replace", timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
