"""The fakes `opgen import` asks for (python/_fakes.py), written as a maintainer would: torchvision 0.14 registers
none (its later releases add them in torchvision/_meta_registrations.py, with these shapes). Each returns empty
tensors of the outputs' shapes and dtypes on the inputs' device."""
import torch


def roi_align(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned):
    torch._check(rois.size(1) == 5, lambda: "rois must have shape as Tensor[K, 5]")
    torch._check(input.dtype == rois.dtype, lambda: "Expected tensor for input to have the same type as rois")
    return input.new_empty((rois.size(0), input.size(1), pooled_height, pooled_width))


def _roi_align_backward(grad, rois, spatial_scale, pooled_height, pooled_width, batch_size, channels, height, width,
                        sampling_ratio, aligned):
    return grad.new_empty((batch_size, channels, height, width))


def roi_pool(input, rois, spatial_scale, pooled_height, pooled_width):
    size = (rois.size(0), input.size(1), pooled_height, pooled_width)
    return input.new_empty(size), input.new_empty(size, dtype=torch.int32)


def _roi_pool_backward(grad, rois, argmax, spatial_scale, pooled_height, pooled_width, batch_size, channels, height,
                       width):
    return grad.new_empty((batch_size, channels, height, width))


def _position_sensitive(input, rois, pooled_height, pooled_width):
    """The output and channel mapping of ps_roi_align and ps_roi_pool: one channel per pooled bin's group."""
    channels = input.size(1)
    torch._check(channels % (pooled_height * pooled_width) == 0,
                 lambda: "input channels must be a multiple of pooling height * pooling width")
    size = (rois.size(0), channels // (pooled_height * pooled_width), pooled_height, pooled_width)
    return input.new_empty(size), input.new_empty(size, dtype=torch.int32)


def ps_roi_align(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio):
    return _position_sensitive(input, rois, pooled_height, pooled_width)


def _ps_roi_align_backward(grad, rois, channel_mapping, spatial_scale, pooled_height, pooled_width, sampling_ratio,
                           batch_size, channels, height, width):
    return grad.new_empty((batch_size, channels, height, width))


def ps_roi_pool(input, rois, spatial_scale, pooled_height, pooled_width):
    return _position_sensitive(input, rois, pooled_height, pooled_width)


def _ps_roi_pool_backward(grad, rois, channel_mapping, spatial_scale, pooled_height, pooled_width, batch_size,
                          channels, height, width):
    return grad.new_empty((batch_size, channels, height, width))


def nms(dets, scores, iou_threshold):
    torch._check(dets.dim() == 2 and dets.size(1) == 4, lambda: "boxes should be a 2d tensor of shape [N, 4]")
    kept = torch.library.get_ctx().new_dynamic_size()  # how many boxes survive: known when it runs
    return dets.new_empty(kept, dtype=torch.long)


def deform_conv2d(input, weight, offset, mask, bias, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups,
                  offset_groups, use_mask):
    kernel_h, kernel_w = weight.shape[-2:]
    out_h = (input.size(2) + 2 * pad_h - (dilation_h * (kernel_h - 1) + 1)) // stride_h + 1
    out_w = (input.size(3) + 2 * pad_w - (dilation_w * (kernel_w - 1) + 1)) // stride_w + 1
    return input.new_empty((input.size(0), weight.size(0), out_h, out_w))


def _deform_conv2d_backward(grad, input, weight, offset, mask, bias, stride_h, stride_w, pad_h, pad_w, dilation_h,
                            dilation_w, groups, offset_groups, use_mask):
    return (input.new_empty(input.shape), weight.new_empty(weight.shape), offset.new_empty(offset.shape),
            mask.new_empty(mask.shape), bias.new_empty(bias.shape))
