import os
import sys

import pytest
import torch

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
