"""Settings of the whole test suite."""

import os

# The first-use message of kernels compiled on a cache miss (keine_ahnung_env/kernel_cache.py) would
# make the stderr of any test depend on whether the Numba cache was warm; tests/test_first_use_message.py
# turns it on where it is the subject.
os.environ.setdefault("KEINE_AHNUNG_ENV_COMPILE_MESSAGE", "0")
