"""`python -m rshmem`: where the installed rshmem is, for build systems and scripts."""

import sys

from . import __version__, get_bin, get_include, get_lib, get_library, get_prefix

_ANSWERS = {
    "--prefix": get_prefix,
    "--include": get_include,
    "--lib": get_lib,
    "--library": get_library,
    "--bin": get_bin,
    "--version": lambda: __version__,
}

_USAGE = """usage: python -m rshmem [--prefix | --include | --lib | --library | --bin | --version]

  --prefix   the installed package (bin/, lib/, include/)
  --include  the directory of shmem.h and shmem.fh
  --lib      the directory of librshmem.so
  --library  librshmem.so itself (e.g. for LD_PRELOAD)
  --bin      the directory of the real oshcc, oshrun, oshinfo
  --version  the rshmem version
With no argument: all of them, one `name: value` a line."""


def main(argv: list) -> int:
    if not argv:
        for flag, answer in _ANSWERS.items():
            print(f"{flag[2:]}: {answer()}")
        return 0
    if len(argv) == 1 and argv[0] in _ANSWERS:
        print(_ANSWERS[argv[0]]())
        return 0
    if len(argv) == 1 and argv[0] in ("-h", "--help"):
        print(_USAGE)
        return 0
    print(_USAGE, file=sys.stderr)
    return 2


sys.exit(main(sys.argv[1:]))
