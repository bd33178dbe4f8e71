#!/usr/bin/env python3
"""A Llama model run with its linear layers on a rung of the course, against PyTorch's own (cuBLAS).

    python3 examples/llama.py [--version v9_stream_k] [--layers 4] [--dtype fp16] [--math-attention]

The model is transformers' LlamaForCausalLM built from a config with Llama-3-8B's shapes (hidden
4096, MLP 14336, 32 query and 8 key-value heads, vocabulary 128256) and a few layers of random
weights: nothing is downloaded. Both runs use the same weights: hopper_matmul.Linear shares each
nn.Linear's parameters, and the two are swapped in and out. Printed:
  - prefill of a 2048-token prompt: the logits' largest difference relative to their largest value,
    the share of positions whose argmax agrees, and each one's time (median of 15, the two timed in
    turns, so that neither always runs on the GPU the other has just heated);
  - greedy decoding, batch 1 and 16, 32 steps, each step replayed from a CUDA graph (where Python's
    overhead would otherwise hide the kernels): whether the tokens are identical (where a sequence
    differs, how far apart the top two logits were where it first does), and the time per step,
    the mean of two decodings in turns (PyTorch's, the rung's, again each); each one's second
    decoding is also compared with its first, and both with a third: the linear layers in fp32,
    rounded. Where the model's decode step cannot be captured, the error is printed and eager
    steps are timed instead.
PyTorch's fused attention kernels do not return the same bits from run to run at batch 16, so a
run differs from itself where two logits tie; --math-attention runs attention as plain matmuls and
softmax instead: slower, but the same tokens every run.
Needs a Hopper GPU, torch, transformers and the built library (make build).
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import hopper_matmul as hm  # noqa: E402  (after the path to the package)

PROMPT = 2048  # prefill tokens
DECODE_PROMPT = 128  # the decode runs' prompt
STEPS = 32


def build(layers, dtype):
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(hidden_size=4096, intermediate_size=14336, num_attention_heads=32, num_key_value_heads=8,
                         num_hidden_layers=layers, vocab_size=128256, max_position_embeddings=8192,
                         rope_theta=500000.0)
    torch.manual_seed(0)
    with torch.device("cuda"):
        return LlamaForCausalLM(config).to(dtype).eval()


class Switch:
    """The model's nn.Linear layers and their hopper_matmul.Linear twins, swapped in on request."""

    def __init__(self, model, version):
        self.places = [(parent, name, child) for parent in model.modules()
                       for name, child in parent.named_children() if type(child) is torch.nn.Linear]
        queue = hm.Queue()  # one stream runs the model: one queue for every layer, made before any capture
        self.ours = [hm.Linear(child, version, queue) for _, _, child in self.places]

    def use(self, ours):
        for (parent, name, child), twin in zip(self.places, self.ours):
            setattr(parent, name, twin if ours else child)

    def use_fp32(self):
        for parent, name, child in self.places:
            setattr(parent, name, Fp32Linear(child))


def median_ms(runs, repeats=15):
    """Each run's median time, the runs timed in turns (a, b, a, b, ...); the first turn warms up.
    A run is a pair: what to do before the clock starts, and what it times."""
    times = [[] for _ in runs]
    for turn in range(repeats + 1):
        for (prepare, run), kept in zip(runs, times):
            prepare()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            run()
            end.record()
            end.synchronize()
            if turn > 0:
                kept.append(start.elapsed_time(end))
    return [sorted(kept)[repeats // 2] for kept in times]


def static_cache(model, batch, length, dtype):
    """A key-value cache of fixed size, so that a decode step has fixed shapes and can be captured."""
    import inspect

    from transformers import StaticCache

    if "max_batch_size" in inspect.signature(StaticCache.__init__).parameters:  # transformers 4
        return StaticCache(config=model.config, max_batch_size=batch, max_cache_len=length, device="cuda", dtype=dtype)
    return StaticCache(config=model.config, max_cache_len=length)  # 5: sized at its first update


def greedy(logits):
    """Each row's token (its largest logit; of equal ones the first, as topk's order among ties can
    change from run to run) and its margin: how far the next largest is below."""
    top = logits.topk(2, dim=-1).values
    return logits.argmax(-1, keepdim=True), (top[:, 0] - top[:, 1]).float()


class Fp32Linear(torch.nn.Module):
    """An nn.Linear computed in fp32 and rounded to its dtype: a third correct GEMM, to show how
    often two of them pick different greedy tokens."""

    def __init__(self, linear):
        super().__init__()
        self.weight = linear.weight.float()

    def forward(self, x):
        return torch.nn.functional.linear(x.float(), self.weight).to(x.dtype)


def decode(model, prompt, dtype):
    """Greedy tokens for STEPS steps after `prompt`, the margin each was chosen by (top logit minus
    the next), and the ms per step, each step a graph replay (or eager, if the step cannot be
    captured: then the reason, else None)."""
    batch, length = prompt.shape
    cache = static_cache(model, batch, length + STEPS + 1, dtype)
    logits = model(input_ids=prompt, past_key_values=cache, cache_position=torch.arange(length, device="cuda"),
                   use_cache=True).logits
    ids, chosen_by = greedy(logits[:, -1])
    margins = [chosen_by]
    position = torch.tensor([length], device="cuda")

    def step():
        return model(input_ids=ids, past_key_values=cache, cache_position=position, use_cache=True).logits

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up off the capture (it writes the step's cache row, rewritten below)
        step()
    torch.cuda.current_stream().wait_stream(side)
    graph, why = torch.cuda.CUDAGraph(), None
    try:
        with torch.cuda.graph(graph):
            out = step()
    except RuntimeError as e:
        graph, why = None, f"{type(e).__name__}: {str(e).splitlines()[0]}"
    tokens = [ids.clone()]
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(STEPS):
        if graph is not None:
            graph.replay()
        else:
            out = step()
        token, chosen_by = greedy(out[:, -1])
        ids.copy_(token)
        position += 1
        tokens.append(ids.clone())
        margins.append(chosen_by)
    end.record()
    end.synchronize()
    return torch.cat(tokens, 1), torch.stack(margins, 1), start.elapsed_time(end) / STEPS, why


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=hm.DEFAULT_VERSION, help=f"the rung (default {hm.DEFAULT_VERSION})")
    parser.add_argument("--layers", type=int, default=4, help="decoder layers (default 4)")
    parser.add_argument("--dtype", choices=("fp16", "bf16"), default="fp16")
    parser.add_argument("--math-attention", action="store_true",
                        help="attention without the fused kernels: the same bits every run")
    args = parser.parse_args()
    if args.version not in hm.versions():
        parser.error(f"--version {args.version}: not a rung ({', '.join(hm.versions())})")
    dtype = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    if args.math_attention:  # scaled_dot_product_attention's math backend alone
        torch.backends.cuda.enable_flash_sdp(False)
        torch.backends.cuda.enable_mem_efficient_sdp(False)
        torch.backends.cuda.enable_cudnn_sdp(False)
    model = build(args.layers, dtype)
    switch = Switch(model, args.version)
    name = {False: "PyTorch (cuBLAS)", True: args.version}
    print(f"model: Llama-3-8B shapes, {args.layers} layers, {args.dtype}, random weights; "
          f"{len(switch.places)} linear layers on {args.version}"
          + ("; attention without fused kernels" if args.math_attention else ""))

    torch.manual_seed(1)
    prompt = torch.randint(0, model.config.vocab_size, (1, PROMPT), device="cuda")
    logits, prefill_ms = {}, {}
    with torch.no_grad():
        for ours in (False, True):
            switch.use(ours)
            logits[ours] = model(input_ids=prompt).logits.float()

        def prefill():
            model(input_ids=prompt)

        prefill_ms[False], prefill_ms[True] = median_ms([(lambda: switch.use(False), prefill),
                                                         (lambda: switch.use(True), prefill)])
    ref, got = logits[False], logits[True]
    difference = ((got - ref).abs().max() / ref.abs().max()).item()
    agree = (got.argmax(-1) == ref.argmax(-1)).float().mean().item()
    print(f"prefill {PROMPT} tokens: logits' largest relative difference {difference:.2e}, "
          f"argmax agrees at {100 * agree:.1f}% of positions")
    print(f"prefill {PROMPT} tokens: {name[False]} {prefill_ms[False]:.2f} ms, {name[True]} {prefill_ms[True]:.2f} ms")

    for batch in (1, 16):
        prompt = torch.randint(0, model.config.vocab_size, (batch, DECODE_PROMPT), device="cuda")
        tokens, margins, ms, why = {}, {}, {}, {}
        with torch.no_grad():
            for ours in (False, True):
                switch.use(ours)
                tokens[ours], margins[ours], ms[ours], why[ours] = decode(model, prompt, dtype)
            again = {}
            for ours in (False, True):  # each once more: how often it disagrees with itself
                switch.use(ours)
                again[ours], _, ms_again, _ = decode(model, prompt, dtype)
                ms[ours] = (ms[ours] + ms_again) / 2
            switch.use_fp32()
            fp32_tokens = decode(model, prompt, dtype)[0]
            switch.use(False)
        how = "CUDA graphs" if not any(why.values()) else "eager steps (capture failed: " + (why[False] or why[True]) + ")"
        differ = (tokens[False] != tokens[True]).any(1)
        same = "yes" if not differ.any() else f"no, {int(differ.sum())} of {batch} sequences differ"
        print(f"decode batch {batch}, {STEPS} steps, {how}: greedy tokens identical: {same}; "
              f"{name[False]} {ms[False]:.3f} ms/step, {name[True]} {ms[True]:.3f} ms/step")
        for ours in (False, True):
            print(f"  {name[ours]} run again: {int((tokens[ours] != again[ours]).any(1).sum())} of {batch} "
                  "sequences differ from its first run")
        for ours in (False, True):
            fp32_differ = int((fp32_tokens != tokens[ours]).any(1).sum())
            print(f"  linear layers in fp32, rounded to {args.dtype}: {fp32_differ} of {batch} sequences differ "
                  f"from {name[ours]}'s")
        for row in differ.nonzero().flatten().tolist():  # where each diverges, and how close that choice was
            step = int((tokens[False][row] != tokens[True][row]).nonzero()[0])
            print(f"  sequence {row} differs from token {step}: there {name[False]}'s top two logits are "
                  f"{margins[False][row, step]:.4f} apart, {name[True]}'s {margins[True][row, step]:.4f}")


if __name__ == "__main__":
    main()
