"""The commands pip puts on PATH (oshcc, oshc++, oshfort, oshrun, oshinfo, ...).

Each replaces this Python process with the tool of the same name in the package's bin/ (execv:
no Python stays between the shell and the compiler or the PEs, and signals and exit statuses pass
unchanged). The wrappers there locate include/ and lib/ from their own path, so the commands work
wherever pip installed the package: a venv, `--user`, a prefix.
"""

import os
import sys

from . import get_bin


def _run(name: str) -> None:
    tool = os.path.join(get_bin(), name)
    try:
        os.execv(tool, [tool] + sys.argv[1:])
    except OSError as e:
        sys.exit(f"{name}: cannot run {tool}: {e.strerror} (reinstall rshmem: pip install --force-reinstall rshmem)")


def oshcc() -> None:
    _run("oshcc")


def oshcxx() -> None:
    _run("oshc++")


def oshCC() -> None:  # noqa: N802 (the command's name)
    _run("oshCC")


def oshfort() -> None:
    _run("oshfort")


def oshf77() -> None:
    _run("oshf77")


def oshf90() -> None:
    _run("oshf90")


def oshrun() -> None:
    _run("oshrun")


def oshinfo() -> None:
    _run("oshinfo")
