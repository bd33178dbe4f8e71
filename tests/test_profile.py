#!/usr/bin/env python3
"""scripts/ncu_profile.py without a GPU: it reads ncu's CSV the way ncu writes it, takes medians over
the profiled launches, finds the registered versions, and refuses to run without ncu or a GPU."""
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import ncu_profile as prof  # noqa: E402

T, D = prof.TENSOR, prof.DRAM
SAMPLE = f'''==PROF== Connected to process 4242 (/work/build/bin/v1_tma)
==PROF== Profiling "matmul_kernel" - 0: 0%....50%....100% - 1 pass
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","{D}","{T}"
"","","","","","","","","","","","%","%"
"0","4242","v1_tma","127.0.0.1","void v1_tma::matmul_kernel<__half>(CUtensorMap_st, CUtensorMap_st, __half *, int, int, int)","1","7","(128, 1, 1)","(4096, 1, 1)","0","9.0","50.5","88.0"
"1","4242","v1_tma","127.0.0.1","void v1_tma::matmul_kernel<__half>(CUtensorMap_st, CUtensorMap_st, __half *, int, int, int)","1","7","(128, 1, 1)","(4096, 1, 1)","0","9.0","40.0","91.0"
"2","4242","v1_tma","127.0.0.1","void v1_tma::matmul_kernel<__half>(CUtensorMap_st, CUtensorMap_st, __half *, int, int, int)","1","7","(128, 1, 1)","(4096, 1, 1)","0","9.0","60.0","10.0"
version            m x n x k         dtype  median ms     min ms     max ms   TFLOPS vs cuBLAS   rel_err  result
v1_tma             8192x8192x8192    fp16       2.029      1.910      2.050    542.0    0.818x         -  -
==PROF== Disconnected from process 4242
'''


class Parse(unittest.TestCase):
    def test_reads_one_row_per_launch_and_skips_the_units_row(self):
        launches = prof.parse_ncu_csv(SAMPLE)
        self.assertEqual(len(launches), 3)
        self.assertEqual(launches[1][T], "91.0")

    def test_medians_ignore_one_outlier_launch(self):
        self.assertEqual(prof.medians(prof.parse_ncu_csv(SAMPLE)), {"tensor_pipe_pct": 88.0, "dram_pct": 50.5})

    def test_no_table_is_an_error_not_a_zero(self):
        self.assertEqual(prof.parse_ncu_csv("==PROF== No kernels were profiled.\n"), [])
        with self.assertRaises(ValueError):
            prof.medians([])

    def test_finds_the_registered_versions(self):
        versions = prof.registered_versions(os.environ["MATMUL_BUILD"])
        self.assertEqual(versions[:2], ["v0_naive", "v1_tma"])
        self.assertIn("v6_tma_store_pingpong", versions)  # an alternative form, with a binary of its own
        self.assertTrue(all(os.path.isfile(os.path.join(os.environ["MATMUL_BUILD"], "bin", v)) for v in versions))
        self.assertNotIn("cublas", versions)
        self.assertFalse([v for v in versions if v.startswith("cutlass_")], "a peer is not profiled")


class Refusals(unittest.TestCase):
    def run_script(self, *args, path=None):
        env = dict(os.environ, PATH=path if path is not None else os.environ["PATH"])
        return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "ncu_profile.py"), *args],
                              capture_output=True, text=True, env=env)

    def test_bad_size_exits_2_with_one_line(self):
        done = self.run_script("--size", "100")
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stderr.strip(), "profile: --size 100: must be a positive multiple of 8")

    def test_without_ncu_exits_3_and_writes_nothing(self):
        before = open(os.path.join(ROOT, "results", "h200.json")).read()
        done = self.run_script(path="/nonexistent")
        self.assertEqual(done.returncode, 3)
        self.assertIn("ncu not found", done.stderr)
        self.assertEqual(open(os.path.join(ROOT, "results", "h200.json")).read(), before)


if __name__ == "__main__":
    unittest.main(verbosity=2)
