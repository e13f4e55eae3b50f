"""Print one shard of the test files, for running the GPU suite in several device calls.

    python3 tools/gpu_shard.py K N   # the K-th (0-based) of N shards, space separated

test_differential.py and test_build.py are left out (they are run on their own: the
differential harness with its own case budget, the build test with its own build).
Files are dealt round-robin in name order, so neighbouring (similar) files spread out.
"""
import pathlib
import sys

k, n = int(sys.argv[1]), int(sys.argv[2])
root = pathlib.Path(__file__).resolve().parent.parent / "tests"
files = sorted(p for p in root.glob("test_*.py")
               if p.name not in ("test_differential.py", "test_build.py"))
print(" ".join(str(p.relative_to(root.parent)) for p in files[k::n]))
