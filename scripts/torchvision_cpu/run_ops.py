"""Calls torchvision's detection ops on seeded inputs on one side (torchvision's own `_C`, or the package opgen
generated, with the same kernels) and saves every output and gradient; then opcheck and
torch.compile(fullgraph=True) on each forward op, one JSON line per op. Run once per side, in separate processes
(both register torchvision::), then compare the two files bit for bit with scripts/vllm_subset/compare.py. Inputs
follow torchvision's test/test_ops.py: float32 and float64, quantized (quint8) nms and roi_align, boxes of every
size, aligned and not, sampling ratios, deformable convolutions with and without masks, strides, padding,
dilation, groups and offset groups. The gradients go through torchvision's C++ autograd kernels on both sides.
  run_ops.py project|imported <OUT of build.sh> <results.pt>"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "vllm_subset"))
from cases import Cases, check_ops  # noqa: E402

side, out_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
if side == "project":
    torch.ops.load_library(f"{out_dir}/build-project/_C.so")
else:
    sys.path.insert(0, f"{out_dir}/build-imported/python")
    import torchvision_ops  # noqa: F401  - defines the ops, registers the fakes, loads the library (the kernels' impls)
V = torch.ops.torchvision
torch.set_num_threads(2)
case = Cases()


def with_grads(op, inputs, *args):
    """op's outputs, then the gradients of a seeded weighting of its first output with respect to inputs."""
    inputs = [t.detach().requires_grad_() for t in inputs]
    outs = op(*inputs, *args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    weight = torch.randn(outs[0].shape, dtype=outs[0].dtype)
    grads = torch.autograd.grad((outs[0] * weight).sum(), inputs)
    return (*(o.detach() for o in outs), *grads)


def boxes(n, size=100.0, dtype=torch.float32):
    xy = torch.rand(n, 2, dtype=dtype) * size
    return torch.cat([xy, xy + torch.rand(n, 2, dtype=dtype) * size / 2 + 0.5], dim=1)


def rois(k, batch, size, dtype):
    return torch.cat([torch.randint(0, batch, (k, 1)).to(dtype), boxes(k, size, dtype)], dim=1)


def quantized(t):
    """A quantized result as what it holds: its integers, scale and zero point."""
    return t.int_repr(), torch.tensor(t.q_scale()), torch.tensor(t.q_zero_point())


for dtype in (torch.float32, torch.float64):
    for n in (0, 1, 10, 500):
        for iou in (0.3, 0.5, 0.7):
            case(f"nms/{dtype}-{n}-{iou}", lambda: V.nms(boxes(n, dtype=dtype), torch.rand(n, dtype=dtype), iou))
    for pooled in ((3, 3), (7, 5)):
        for scale in (1.0, 0.5):
            for k in (0, 1, 12):
                tag = f"{dtype}-{pooled}-{scale}-{k}"
                for sampling in (-1, 2):
                    for aligned in (False, True):
                        case(f"roi_align/{tag}-{sampling}-{aligned}",
                             lambda: with_grads(V.roi_align, [torch.randn(2, 3, 20, 24, dtype=dtype)], rois(k, 2, 40, dtype),
                                                scale, *pooled, sampling, aligned))
                    case(f"ps_roi_align/{tag}-{sampling}",
                         lambda: with_grads(V.ps_roi_align, [torch.randn(2, 2 * pooled[0] * pooled[1], 20, 24, dtype=dtype)],
                                            rois(k, 2, 40, dtype), scale, *pooled, sampling))
                case(f"roi_pool/{tag}", lambda: with_grads(V.roi_pool, [torch.randn(2, 3, 20, 24, dtype=dtype)],
                                                           rois(k, 2, 40, dtype), scale, *pooled))
                case(f"ps_roi_pool/{tag}",
                     lambda: with_grads(V.ps_roi_pool, [torch.randn(2, 2 * pooled[0] * pooled[1], 20, 24, dtype=dtype)],
                                        rois(k, 2, 40, dtype), scale, *pooled))
    for stride, pad, dilation in ((1, 0, 1), (2, 1, 1), (1, 2, 2)):
        for groups, offset_groups in ((1, 1), (2, 1), (1, 2)):
            for use_mask in (True, False):
                def deform():
                    n, c_in, c_out, h, w, k = 2, 4, 6, 9, 11, 3
                    oh = (h + 2 * pad - (dilation * (k - 1) + 1)) // stride + 1
                    ow = (w + 2 * pad - (dilation * (k - 1) + 1)) // stride + 1
                    inputs = [torch.randn(n, c_in, h, w, dtype=dtype), torch.randn(c_out, c_in // groups, k, k, dtype=dtype),
                              torch.randn(n, 2 * offset_groups * k * k, oh, ow, dtype=dtype),
                              torch.rand(n, offset_groups * k * k, oh, ow, dtype=dtype), torch.randn(c_out, dtype=dtype)]
                    if not use_mask:
                        inputs[3] = torch.zeros(n, 1, dtype=dtype)  # what torchvision.ops.deform_conv2d passes
                        outs = with_grads(lambda i, wt, off, b: V.deform_conv2d(i, wt, off, inputs[3], b, stride, stride,
                                                                                pad, pad, dilation, dilation, groups,
                                                                                offset_groups, False),
                                          [inputs[0], inputs[1], inputs[2], inputs[4]])
                        return outs
                    return with_grads(V.deform_conv2d, inputs, stride, stride, pad, pad, dilation, dilation, groups,
                                      offset_groups, True)
                case(f"deform_conv2d/{dtype}-s{stride}-p{pad}-d{dilation}-g{groups}-og{offset_groups}-{use_mask}", deform)

# The QuantizedCPU kernels: quint8 boxes, scores, inputs and rois.
for n in (0, 10, 200):
    for iou in (0.3, 0.7):
        def qnms():
            q = lambda t: torch.quantize_per_tensor(t, scale=1.0, zero_point=0, dtype=torch.quint8)  # noqa: E731
            return V.nms(q(boxes(n, size=100.0)), q(torch.rand(n) * 100), iou)
        case(f"nms/quint8-{n}-{iou}", qnms)
for aligned in (False, True):
    for k in (1, 12):
        def qroi():
            # One image: the quantized kernel takes no other batch.
            x = torch.quantize_per_tensor(torch.rand(1, 3, 20, 24) * 10, scale=0.1, zero_point=3, dtype=torch.quint8)
            r = torch.quantize_per_tensor(rois(k, 1, 20, torch.float32), scale=0.25, zero_point=0, dtype=torch.quint8)
            return quantized(V.roi_align(x, r, 1.0, 5, 5, 2, aligned))
        case(f"roi_align/quint8-{k}-{aligned}", qroi)

torch.save(dict(case), out)
print(f"{side}: {len(case)} cases, {sum(isinstance(v, str) for v in case.values())} raised")

# opcheck and torch.compile(fullgraph=True) on the forward ops: the fakes the side registers (torchvision 0.14 has
# none; the imported side's are the ones the report asked for) against its kernels, and its autograd kernels.
torch.manual_seed(0)
x, r = torch.randn(2, 8, 12, 12, requires_grad=True), rois(4, 2, 12, torch.float32)
CHECKS = {
    "nms": (boxes(20), torch.rand(20), 0.5),
    "roi_align": (x, r, 1.0, 2, 2, 2, True),
    "roi_pool": (x, r, 1.0, 2, 2),
    "ps_roi_align": (x, r, 1.0, 2, 2, 2),
    "ps_roi_pool": (x, r, 1.0, 2, 2),
    "deform_conv2d": (torch.randn(1, 2, 6, 6, requires_grad=True), torch.randn(3, 2, 3, 3, requires_grad=True),
                      torch.randn(1, 18, 4, 4), torch.rand(1, 9, 4, 4), torch.randn(3), 1, 1, 0, 0, 1, 1, 1, 1, True),
}
check_ops(side, V, CHECKS)
