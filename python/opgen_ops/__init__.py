"""The in-tree op library built by opgen from schemas/ and kernels/.

Importing it loads the shared library and registers every op's fake,
autograd and symm_mem parts; each op is then callable both as
``torch.ops.opgen.<op>`` and as ``opgen_ops.<op>`` (the same overload object):
the namespace stays `opgen`; the Python package has a name of its own, as
the tool's package is `opgen`.
"""

# The ops are the package's only public names, so `from opgen_ops import *`
# gives exactly them. No __all__ of its own: a type checker reads the
# star-import through _ops.pyi's __all__, but not a re-imported one.
from ._ops import *  # noqa: F401,F403
