#!/usr/bin/env python3
"""Where the GPU's time goes in the Llama of examples/llama.py, kernel by kernel, with PyTorch's own
linear layers (cuBLAS) and with a rung's.

    python3 examples/llama_kernels.py [--version v9_stream_k] [--layers 4] [--top 8]

For a prefill of 2048 tokens and for one token without a cache (the M = 1 shapes of decoding), each
run's total kernel time and its most expensive kernels (torch.profiler, after three warm-up
passes). The total counts only time on the GPU: gaps between kernels, where the GPU waits for the
host or for a launch, are not in it; llama.py's wall-clock times are.
"""

import argparse
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama  # noqa: E402  (after the path to it)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=llama.hm.DEFAULT_VERSION, help="the rung")
    parser.add_argument("--layers", type=int, default=4, help="decoder layers (default 4)")
    parser.add_argument("--top", type=int, default=8, help="kernels listed per run (default 8)")
    args = parser.parse_args()
    if args.version not in llama.hm.versions():
        parser.error(f"--version {args.version}: not a rung ({', '.join(llama.hm.versions())})")
    if args.layers < 1 or args.top < 1:
        parser.error("--layers and --top must be at least 1")
    model = llama.build(args.layers, torch.float16)
    switch = llama.Switch(model, args.version)
    torch.manual_seed(1)
    inputs = {"prefill of 2048 tokens": torch.randint(0, model.config.vocab_size, (1, 2048), device="cuda"),
              "one token, no cache": torch.randint(0, model.config.vocab_size, (1, 1), device="cuda")}
    for label, ids in inputs.items():
        for ours in (False, True):
            switch.use(ours)
            with torch.no_grad():
                for _ in range(3):
                    model(input_ids=ids)
                torch.cuda.synchronize()
                with profile(activities=[ProfilerActivity.CUDA]) as run:
                    model(input_ids=ids)
                    torch.cuda.synchronize()
            kernels = [k for k in run.key_averages() if k.self_device_time_total > 0]
            total = sum(k.self_device_time_total for k in kernels) / 1e3
            print(f"{label}, {args.version if ours else 'PyTorch (cuBLAS)'}: kernels {total:.3f} ms on the GPU")
            for k in sorted(kernels, key=lambda k: -k.self_device_time_total)[:args.top]:
                print(f"  {k.self_device_time_total / 1e3:8.3f} ms {k.count:4d}x  {k.key[:100]}")


if __name__ == "__main__":
    main()
