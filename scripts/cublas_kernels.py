#!/usr/bin/env python3
"""Which kernels cuBLAS runs on the LLM suite's layer shapes, through PyTorch.

    python3 scripts/cublas_kernels.py [M,M,...]   (default 1,16,64,128,512,2048)

For each M, each (N, K) of the suite's Llama-3 8B and 70B layers (bench/ladder.cpp) and fp16 then
bf16: torch.nn.functional.linear(x, W), x of M x K and W of N x K (this project's C = A·Bᵀ), three
times untimed, then five under torch.profiler; prints each kernel it ran with its mean GPU time.
cuBLAS's Hopper kernels are named for their configuration: nvjet_sm90_hsh_320x128_64x3_1x2_...
is a 320 x 128 tile, 64-element K-steps in 3 stages, 1 x 2 clusters; splitK, where present, adds a
reduction kernel. The L2 is not flushed: the names are the point, not the times.
Exit codes: 0 done, 2 bad arguments, 3 no torch or no GPU.
"""
import sys

LAYERS = [(6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336), (10240, 8192), (8192, 8192), (57344, 8192),
          (8192, 28672)]


def main(argv):
    try:
        ms = [int(m) for m in (argv[1] if len(argv) > 1 else "1,16,64,128,512,2048").split(",")]
        if len(argv) > 2 or any(m < 1 for m in ms):
            raise ValueError
    except ValueError:
        print(__doc__.splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile
    except ImportError:
        print("cublas_kernels: needs torch", file=sys.stderr)
        return 3
    if not torch.cuda.is_available():
        print("cublas_kernels: no GPU", file=sys.stderr)
        return 3
    for dtype in (torch.float16, torch.bfloat16):
        for m in ms:
            for n, k in LAYERS:
                x = torch.randn(m, k, device="cuda", dtype=dtype)
                w = torch.randn(n, k, device="cuda", dtype=dtype)
                for _ in range(3):
                    torch.nn.functional.linear(x, w)
                torch.cuda.synchronize()
                with profile(activities=[ProfilerActivity.CUDA]) as run:
                    for _ in range(5):
                        torch.nn.functional.linear(x, w)
                    torch.cuda.synchronize()
                kernels = [e for e in run.key_averages() if e.self_device_time_total > 0]
                listed = "; ".join(f"{e.key[:70]} {e.self_device_time_total / e.count:.1f}us" for e in kernels)
                print(f"{str(dtype)[6:]:8s} {m:5d} {n:6d} {k:6d}  {listed}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
