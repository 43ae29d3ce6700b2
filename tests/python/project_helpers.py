"""Running builds and installed packages from the tests that play an outside
user (test_external_project, test_init, test_packaging, test_tool_wheel):
nothing of the CTest tree may leak into what they run."""

import os
import subprocess


def clean_env(**extra):
    """The environment without CTest's pointers into the build tree
    (PYTHONPATH, OPGEN_*) or a CMake prefix of the caller's, so that only what
    a test installed can provide opgen or an op package; builds get 2 jobs
    unless told otherwise, as other tests run beside them."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "CMAKE_PREFIX_PATH") and not k.startswith("OPGEN_")}
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    return env | extra


def run(cmd, **kwargs):
    """Runs cmd (in clean_env() unless given an env) and asserts it succeeds,
    showing the ends of its output when it does not."""
    kwargs.setdefault("env", clean_env())
    result = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{cmd}\n{result.stdout[-6000:]}\n{result.stderr[-6000:]}"
    return result
