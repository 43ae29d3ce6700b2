import atexit
import os
import shutil
import sys
import tempfile

# Inductor's on-disk caches outlive a run, and key a compiled graph on the
# graph, not on the fakes of the custom ops in it: after an op's fake changed
# a result's dtype, a later run reused the old code ("expected dtype
# torch.float8_e4m3fn but got torch.uint8"). Each session compiles into a
# cache of its own (subprocesses inherit it), before torch is imported.
if "TORCHINDUCTOR_CACHE_DIR" not in os.environ:
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="opgen-inductor-")
    atexit.register(shutil.rmtree, os.environ["TORCHINDUCTOR_CACHE_DIR"], True)

import pytest  # noqa: E402
import torch  # noqa: E402

# The built package lives in <build>/python (CTest sets PYTHONPATH); allow
# running pytest by hand from the source tree after scripts/build.sh too.
_default_build = os.path.join(os.path.dirname(__file__), "..", "..", "build", "python")
if os.path.isdir(_default_build) and _default_build not in sys.path:
    sys.path.append(_default_build)


@pytest.fixture(autouse=True)
def _reset_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.fixture(scope="module")
def gloo_group():
    """A gloo process group of one rank (the host-object ops' ProcessGroup)."""
    import torch.distributed as dist

    if dist.is_initialized():
        pytest.skip("a process group is already initialized")
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    yield dist.group.WORLD
    dist.destroy_process_group()
