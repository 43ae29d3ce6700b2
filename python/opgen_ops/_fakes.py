"""Handwritten fakes (`fake: {python: "opgen_ops._fakes:..."}` in schemas/) for the
ops whose outputs the rule language cannot describe."""

import torch


def runner_create_fake(scale, shift=0.0):
    """runner_create returns a registry id that only the real op knows: under
    tracing it is an unbacked int (ids start at 1). Create runners eagerly;
    this fake exists so that tracing through the op is well defined."""
    return torch.library.get_ctx().new_dynamic_size(min=1)
