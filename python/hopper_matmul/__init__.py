"""The course's matmul rungs from PyTorch, through the C ABI of build/lib/libhopper_matmul.so.

    import hopper_matmul as hm
    y = hm.matmul(x, w)          # x @ w.T, fp16 or bf16, on x's device and its current stream
    hm.swap_linears(model)       # every fp16/bf16 nn.Linear of the model now runs on a rung

No compiled extension: ctypes, with the PyTorch already installed. Inference only: the rungs have
no backward, and autograd does not see them. Every call checks its tensors
first and raises ValueError naming what is wrong; the library's own refusals (K not a multiple
of 8, an unaligned pointer) come back as ValueError with its message. Nothing is launched then.
"""

import contextlib
import ctypes

import torch

from . import _library

__all__ = ["DEFAULT_VERSION", "Linear", "Queue", "matmul", "swap_linears", "versions"]

DEFAULT_VERSION = "v9_stream_k"  # the fastest rung on a model's shapes (docs/v9_stream_k.md)
_DTYPES = {torch.float16: _library.HM_FP16, torch.bfloat16: _library.HM_BF16}


def versions():
    """The rungs, in ladder order."""
    lib = _library.library()
    return [lib.hm_version_name(i).decode() for i in range(lib.hm_version_count())]


class Queue:
    """A rung's device state for its faster form: the tile queue's counter (v5 to v8) and stream-K's
    scratch (v9), about 17 MB on a 132-SM GPU (common/hopper/tile_queue.h). Launches that share a
    queue must be stream-ordered: one queue per stream of launches (a model run on one stream needs
    one). Make it before a CUDA graph capture: making one allocates and synchronizes."""

    def __init__(self, device=None):
        device = torch.device("cuda") if device is None else torch.device(device)
        if device.type != "cuda":
            raise ValueError(f"Queue: device {device} is not a CUDA device")
        # With its index, so that it compares equal to the device of a tensor on it.
        self.device = torch.device("cuda", device.index if device.index is not None else torch.cuda.current_device())
        handle = ctypes.c_void_p()
        with torch.cuda.device(self.device):
            _library.check(_library.library().hm_queue_create(ctypes.byref(handle)))
        self._handle = handle

    def close(self):
        """Frees the queue once the launches that use it are done."""
        if getattr(self, "_handle", None):
            _library.library().hm_queue_destroy(self._handle)
            self._handle = None

    def __del__(self):
        self.close()


# The raw cudaStream_t of a device's current stream. The private call is the one Triton makes: a
# tenth of the public path's cost, which counts when a model calls a rung hundreds of times a pass.
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _current_stream(device):
    return _raw_stream(device.index) if _raw_stream else torch.cuda.current_stream(device).cuda_stream


def _check_operand(name, t):
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"{name} is a {type(t).__name__}, not a torch.Tensor")
    if t.dim() != 2:
        raise ValueError(f"{name} has shape {tuple(t.shape)}: it must be a matrix (2 dimensions)")
    if t.dtype not in _DTYPES:
        raise ValueError(f"{name} is {t.dtype}: the rungs take torch.float16 or torch.bfloat16")
    if t.device.type != "cuda":
        raise ValueError(f"{name} is on {t.device}: the rungs run on a CUDA device")
    if not t.is_contiguous():
        raise ValueError(f"{name} (shape {tuple(t.shape)}, strides {t.stride()}) is not contiguous: "
                         "rows must be packed (call .contiguous())")


def matmul(a, b, version=DEFAULT_VERSION, out=None, queue=None):
    """a @ b.T for a of M × K and b of N × K (b as nn.Linear keeps its weight), fp32 accumulation,
    in a's dtype, on a's device and that device's current stream. `out` (M × N, same dtype and
    device, contiguous) receives it if given. `queue` (a Queue of that device) selects the rung's
    faster form; without one, its stateless form."""
    _check_operand("a", a)
    _check_operand("b", b)
    if b.dtype != a.dtype:
        raise ValueError(f"a is {a.dtype} and b is {b.dtype}: both must have the same dtype")
    if b.device != a.device:
        raise ValueError(f"a is on {a.device} and b on {b.device}: both must be on one device")
    (m, k), (n, k_b) = a.shape, b.shape
    if k_b != k:
        raise ValueError(f"a is {m} × {k} and b is {n} × {k_b}: a @ b.T needs as many columns in b as in a")
    if out is None:
        out = a.new_empty((m, n))
    else:
        _check_operand("out", out)
        if out.shape != (m, n) or out.dtype != a.dtype or out.device != a.device:
            raise ValueError(f"out is {tuple(out.shape)} {out.dtype} on {out.device}: it must be ({m}, {n}) "
                             f"{a.dtype} on {a.device}")
    if queue is not None and queue.device != a.device:
        raise ValueError(f"the queue is on {queue.device} and the operands on {a.device}: a queue serves "
                         "its own device")
    args = (version.encode(), _DTYPES[a.dtype], a.data_ptr(), b.data_ptr(), out.data_ptr(), m, n, k,
            _current_stream(a.device), queue._handle if queue is not None else None)
    # The launch goes to the current device: switched to a's only when it is another.
    with contextlib.nullcontext() if a.device.index == torch.cuda.current_device() else torch.cuda.device(a.device):
        status = _library.library().hm_matmul(*args)
    _library.check(status)
    return out


class Linear(torch.nn.Module):
    """nn.Linear's forward on a rung: y = x·Wᵀ by the rung, then + bias by PyTorch. It shares the
    original's weight and bias (nothing copied); the weight must be fp16 or bf16."""

    def __init__(self, linear, version=DEFAULT_VERSION, queue=None):
        super().__init__()
        if linear.weight.dtype not in _DTYPES:
            raise ValueError(f"Linear: the weight is {linear.weight.dtype}: the rungs take torch.float16 or "
                             "torch.bfloat16 (convert the model first, e.g. model.half())")
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.weight, self.bias = linear.weight, linear.bias
        self.version, self.queue = version, queue

    def forward(self, x):
        rows = x.reshape(-1, self.in_features)
        y = matmul(rows if rows.is_contiguous() else rows.contiguous(), self.weight, self.version,
                   queue=self.queue)
        if self.bias is not None:
            y += self.bias
        return y.reshape(*x.shape[:-1], self.out_features)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, version={self.version}"


def swap_linears(module, version=DEFAULT_VERSION, queue=True):
    """Replaces, in place, every nn.Linear of `module` whose weight is fp16 or bf16 by a Linear on
    `version`, and returns the module. queue=True gives them one Queue per device, made now, so
    run the module on one stream at a time (a CUDA graph replay included); None, the stateless
    form; or a Queue to use."""
    queues = {}

    def queue_for(device):
        if queue is True:
            if device not in queues:
                queues[device] = Queue(device)
            return queues[device]
        return queue

    for parent in list(module.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is torch.nn.Linear and child.weight.dtype in _DTYPES:
                setattr(parent, name, Linear(child, version, queue_for(child.weight.device)))
    return module
