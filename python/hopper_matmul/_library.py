"""The C ABI of build/lib/libhopper_matmul.so (capi/hopper_matmul.h), through ctypes."""

import ctypes
import os

HM_OK, HM_INVALID_ARGUMENT, HM_UNKNOWN_VERSION, HM_NOT_IMPLEMENTED, HM_CUDA_ERROR = range(5)
HM_FP16, HM_BF16 = 0, 1

# The build's library, from this package's place in the repository: python/hopper_matmul/.
_BUILT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "lib", "libhopper_matmul.so")

_lib = None


def library():
    """The loaded library: HOPPER_MATMUL_LIB's, else the build's. Loaded at first use."""
    global _lib
    if _lib is None:
        path = os.path.normpath(os.environ.get("HOPPER_MATMUL_LIB", _BUILT))
        if not os.path.isfile(path):
            raise OSError(f"hopper_matmul: no library at {path}: `make build` writes build/lib/libhopper_matmul.so, "
                          "or set HOPPER_MATMUL_LIB to where it is")
        lib = ctypes.CDLL(path)  # ctypes releases the GIL during each call: threads launch at once
        lib.hm_last_error.restype = ctypes.c_char_p
        lib.hm_last_error.argtypes = []
        lib.hm_version_count.restype = ctypes.c_int
        lib.hm_version_count.argtypes = []
        lib.hm_version_name.restype = ctypes.c_char_p
        lib.hm_version_name.argtypes = [ctypes.c_int]
        lib.hm_queue_create.restype = ctypes.c_int
        lib.hm_queue_create.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        lib.hm_queue_destroy.restype = None
        lib.hm_queue_destroy.argtypes = [ctypes.c_void_p]
        lib.hm_matmul.restype = ctypes.c_int
        lib.hm_matmul.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        _lib = lib
    return _lib


def check(status):
    """Raises what a status means, with the library's message: ValueError for a bad argument or an
    unknown rung (nothing was launched), NotImplementedError, RuntimeError for a CUDA failure."""
    if status == HM_OK:
        return
    message = library().hm_last_error().decode()
    error = {HM_INVALID_ARGUMENT: ValueError, HM_UNKNOWN_VERSION: ValueError,
             HM_NOT_IMPLEMENTED: NotImplementedError}.get(status, RuntimeError)
    raise error(message)
