"""rshmem: OpenSHMEM 1.6 with the standard C ABI, as installed by pip.

The package holds the library and what programs need to use it; nothing here is imported by a
running OpenSHMEM program:

    bin/      oshcc, oshc++, oshCC, oshfort, oshf77, oshf90 (one shell script under several
              names), oshrun (the single-node launcher), oshinfo; the commands of the same names
              on PATH run these (python/scripts/launcher in the repository)
    lib/      librshmem.so, libshmem.so (a linker script, INPUT(-lrshmem), for -lshmem),
              pkgconfig/rshmem.pc (relocatable: its prefix is its own location)
    include/  shmem.h, shmemx.h, pshmem.h, shmem.fh, mpp/

The functions below give these paths to build systems: `python -m rshmem --lib` prints the
library directory (see `python -m rshmem --help`).
"""

import os

_here = os.path.dirname(os.path.abspath(__file__))

with open(os.path.join(_here, "VERSION"), encoding="ascii") as _f:
    __version__ = _f.read().strip()


def get_prefix() -> str:
    """The directory holding bin/, lib/ and include/."""
    return _here


def get_include() -> str:
    """The directory of shmem.h and shmem.fh (for -I)."""
    return os.path.join(_here, "include")


def get_lib() -> str:
    """The directory of librshmem.so (for -L and the rpath)."""
    return os.path.join(_here, "lib")


def get_library() -> str:
    """The library itself (for LD_PRELOAD or dlopen)."""
    return os.path.join(_here, "lib", "librshmem.so")


def get_bin() -> str:
    """The directory of the real oshcc, oshrun and oshinfo."""
    return os.path.join(_here, "bin")
