"""Run every bench/bench_*.py (or those named: ``python bench/run.py stream memory``)
and print the ember/torch ratio table. Needs a GPU and torch for most rows."""
import importlib
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from harness import Table  # noqa: E402


def main(argv):
    here = pathlib.Path(__file__).parent
    names = sorted(p.stem[len("bench_"):] for p in here.glob("bench_*.py"))
    chosen = [n for n in names if not argv or n in argv]
    table = Table()
    for name in chosen:
        print(f"[{name}]", flush=True)
        importlib.import_module(f"bench_{name}").run(table)
    print()
    print(table.render())
    missed = [r.name for r in table.rows if r.met is False]
    if missed:
        print("\ntargets missed: " + ", ".join(missed))


if __name__ == "__main__":
    main(sys.argv[1:])
