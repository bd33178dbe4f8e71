"""python/hopper_matmul against an fp32 reference on the GPU: ragged shapes in both dtypes
with and without a queue, output poisoned first; bad input refused with ValueError and nothing
written; a CUDA graph captured and replayed on fresh inputs; two threads on their own streams at
once; nn.Linear swapped in a module. Runs under pytest or as a script; without torch, a CUDA
device of compute capability 9.0 or the built library, every test is skipped (as a script: exit
77, which CTest reports as skipped)."""

import math
import os
import sys
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

try:
    import torch
except ImportError:
    torch = None


def unavailable():
    """Why these tests cannot run here, or None."""
    if torch is None:
        return "no torch in this Python"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    if torch.cuda.get_device_capability() != (9, 0):
        return f"{torch.cuda.get_device_name()} is not a Hopper GPU (compute capability 9.0)"
    try:
        import hopper_matmul
        hopper_matmul.versions()
    except OSError as e:
        return str(e)
    return None


def setUpModule():
    reason = unavailable()
    if reason:
        raise unittest.SkipTest(reason)


RUNGS = ("v9_stream_k", "v8_deferred_store", "v4_two_consumers")
# (M, K, N): one token, a few, ragged N, K of one step, more rows than one tile.
SHAPES = ((1, 4096, 4096), (16, 520, 1000), (37, 64, 333), (300, 1000, 2056))


def reference(a, b):
    return (a.float() @ b.float().T)


def error(c, ref):
    """The largest difference from the fp32 reference, relative to the reference's largest value."""
    return ((c.float() - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()


def tolerance(dtype):
    return 2e-3 if dtype == torch.float16 else 1.6e-2


class Matmul(unittest.TestCase):
    def test_matches_the_fp32_reference_on_ragged_shapes(self):
        import hopper_matmul as hm
        queue = hm.Queue()
        for version in RUNGS:
            for dtype in (torch.float16, torch.bfloat16):
                for m, k, n in SHAPES:
                    for q in (None, queue):
                        with self.subTest(version=version, dtype=dtype, shape=(m, k, n), queue=q is not None):
                            a = torch.randn(m, k, device="cuda", dtype=dtype) / math.sqrt(k)
                            b = torch.randn(n, k, device="cuda", dtype=dtype)
                            out = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
                            hm.matmul(a, b, version, out=out, queue=q)
                            torch.cuda.synchronize()
                            self.assertFalse(out.isnan().any().item(), "an element of C was never written")
                            self.assertLess(error(out, reference(a, b)), tolerance(dtype))

    def test_bad_input_is_refused_by_name_and_nothing_is_written(self):
        import hopper_matmul as hm
        a = torch.randn(16, 64, device="cuda", dtype=torch.float16)
        b = torch.randn(32, 64, device="cuda", dtype=torch.float16)
        out = torch.full((16, 32), float("nan"), device="cuda", dtype=torch.float16)
        cases = {
            "float32": (a.float(), b, "torch.float32"),
            "on the CPU": (a.cpu(), b, "cpu"),
            "not contiguous": (a, b.T.contiguous().T, "not contiguous"),
            "dtypes differ": (a, b.bfloat16(), "same dtype"),
            "K differs": (a, b[:, :56].contiguous(), "columns"),
            "three dimensions": (a[None], b, "2 dimensions"),
        }
        for what, (x, w, says) in cases.items():
            with self.subTest(what):
                with self.assertRaisesRegex(ValueError, says):
                    hm.matmul(x, w, out=out)
        with self.assertRaisesRegex(ValueError, "v99"):
            hm.matmul(a, b, "v99_none", out=out)
        odd = torch.randn(16, 60, device="cuda", dtype=torch.float16)  # K = 60: not a multiple of 8
        with self.assertRaisesRegex(ValueError, "60"):
            hm.matmul(odd, torch.randn(32, 60, device="cuda", dtype=torch.float16), out=out)
        torch.cuda.synchronize()
        self.assertTrue(out.isnan().all().item(), "a refused call wrote C")

    def test_a_captured_graph_replays_right_on_fresh_inputs(self):
        import hopper_matmul as hm
        queue = hm.Queue()  # made before the capture: making one allocates
        a = torch.randn(64, 4096, device="cuda", dtype=torch.float16) / 64
        b = torch.randn(6144, 4096, device="cuda", dtype=torch.float16)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            hm.matmul(a, b, queue=queue)  # warm up off the capture, as torch.cuda.graph asks
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            c = hm.matmul(a, b, queue=queue)
        for _ in range(3):
            a.copy_(torch.randn_like(a) / 64)
            c.fill_(float("nan"))
            graph.replay()
            torch.cuda.synchronize()
            self.assertLess(error(c, reference(a, b)), tolerance(torch.float16))

    def test_two_threads_on_their_own_streams_at_once(self):
        import hopper_matmul as hm
        failures = []

        def work(seed):
            try:
                torch.manual_seed(seed)
                stream, queue = torch.cuda.Stream(), hm.Queue()
                with torch.cuda.stream(stream):
                    for _ in range(5):
                        a = torch.randn(16 * (seed + 1), 2048, device="cuda", dtype=torch.bfloat16) / 45
                        b = torch.randn(4096 + 8 * seed, 2048, device="cuda", dtype=torch.bfloat16)
                        c = hm.matmul(a, b, queue=queue)
                        stream.synchronize()
                        if error(c, reference(a, b)) >= tolerance(torch.bfloat16):
                            failures.append(f"thread {seed}: error {error(c, reference(a, b))}")
            except Exception as e:  # noqa: BLE001: reported below, with the thread
                failures.append(f"thread {seed}: {e!r}")

        threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])

    def test_swap_linears_keeps_the_module_s_outputs(self):
        import hopper_matmul as hm
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.GELU(),
                                    torch.nn.Linear(1024, 256, bias=False)).cuda().half()
        x = torch.randn(3, 7, 512, device="cuda", dtype=torch.float16)
        with torch.no_grad():
            expected = model(x).float()
            hm.swap_linears(model)
            self.assertEqual(sum(isinstance(layer, hm.Linear) for layer in model), 2)
            got = model(x).float()
        self.assertLess(((got - expected).abs().max() / expected.abs().max()).item(), 1e-2)


if __name__ == "__main__":
    reason = unavailable()
    if reason:
        print(f"skipped: {reason}")
        sys.exit(77)
    unittest.main()
