"""The in-tree op library built by opgen from schemas/ and kernels/.

Importing it loads the shared library and registers every op's fake,
autograd and symm_mem parts; each op is then callable both as
``torch.ops.opgen.<op>`` and as ``opgen.<op>`` (the same overload object).
"""

from ._ops import *  # noqa: F401,F403
from ._ops import __all__  # noqa: F401
