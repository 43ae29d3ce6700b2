"""Every result of one side against the other's, bit for bit (floats compared as their bytes, so NaNs and
signed zeros count); a case both sides raised in the same way is said apart.
  compare.py <project.pt> <imported.pt>"""
import sys

import torch


def as_bytes(t):
    return t.contiguous().reshape(-1).view(torch.uint8) if t.is_floating_point() else t  # a 0-d one too


def same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return len(a) == len(b) and all(torch.equal(as_bytes(x), as_bytes(y)) for x, y in zip(a, b))


project, imported = torch.load(sys.argv[1]), torch.load(sys.argv[2])
assert project.keys() == imported.keys(), set(project) ^ set(imported)
differ = [name for name in project if not same(project[name], imported[name])]
raised = [name for name in project if isinstance(project[name], str) and name not in differ]
print(f"{len(project) - len(differ) - len(raised)} of {len(project)} cases bit-identical; both raised alike in "
      f"{len(raised)}; differ: {len(differ)}", *differ)
sys.exit(1 if differ else 0)
