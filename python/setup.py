"""The wheel holds native files but no Python extension: tag it py3-none-<platform>.

The commands (oshcc, oshc++, oshCC, oshfort, oshf77, oshf90, oshrun, oshinfo) are copies of
scripts/launcher under those names (written to build-scripts/), installed as scripts, not as entry points: an entry point
imports the package, which an isolated build (pip building shmem4py with oshcc) cannot see.

scripts/wheel stages librshmem.so, oshrun, oshinfo, the wrappers and the headers into a copy of
this folder and passes the platform tag in RSHMEM_WHEEL_PLAT (auditwheel then checks it). Run on
this folder as it is in the repository, it stops: the native files are not there.
"""

import os

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel

here = os.path.dirname(os.path.abspath(__file__))
if not os.path.exists(os.path.join(here, "rshmem", "lib", "librshmem.so")):
    raise SystemExit(
        "rshmem/lib/librshmem.so is missing: build the wheel with scripts/wheel OUTDIR "
        "from the repository, which compiles the library and stages it here"
    )


class NativeDistribution(Distribution):
    # Native files: the package goes to platlib (the wheel's root, Root-Is-Purelib: false), which
    # auditwheel requires.
    def has_ext_modules(self):
        return True


class Wheel(bdist_wheel):
    def get_tag(self):
        return "py3", "none", os.environ.get("RSHMEM_WHEEL_PLAT", "linux_x86_64")


COMMANDS = ["oshcc", "oshc++", "oshCC", "oshfort", "oshf77", "oshf90", "oshrun", "oshinfo"]
os.makedirs(os.path.join(here, "build-scripts"), exist_ok=True)
with open(os.path.join(here, "scripts", "launcher"), encoding="utf-8") as f:
    launcher = f.read()
for name in COMMANDS:
    with open(os.path.join(here, "build-scripts", name), "w", encoding="utf-8") as f:
        f.write(launcher)

setup(
    distclass=NativeDistribution,
    cmdclass={"bdist_wheel": Wheel},
    scripts=[os.path.join("build-scripts", name) for name in COMMANDS],
)
