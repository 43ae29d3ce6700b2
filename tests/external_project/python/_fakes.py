"""Handwritten fakes of the external project's ops whose outputs the rule
language cannot describe (an optional output, non-tensor outputs)."""

import torch


def maybe_halves_fake(x, both, scales=None, layout=None, memory_format=None):
    return torch.empty_like(x), (torch.empty_like(x) if both else None)


def describe_fake(x):
    return list(x.shape), str(x.dtype).removeprefix("torch."), x.numel()
