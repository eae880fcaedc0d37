"""The wheel holds native files but no Python extension: tag it py3-none-<platform>.

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


setup(distclass=NativeDistribution, cmdclass={"bdist_wheel": Wheel})
