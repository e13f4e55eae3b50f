"""Run every bench/bench_*.py (or those named: ``python bench/run.py stream memory``)
and print the ember/torch ratio table. Needs a GPU and torch for most rows.

``--json PATH`` also writes the run's record: every row (name, ember, torch, unit, ratio,
target, met) with the GPU, ember's commit and version, torch's version and the date, so
that runs can be compared over time. PATH may be a directory (bench/results/): the file
is then named YYYY-MM-DD-<gpu>-<commit>.json (see bench/results/README.md)."""
import argparse
import importlib
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from harness import Table, run_metadata, write_record  # noqa: E402


def main(argv):
    here = pathlib.Path(__file__).parent
    names = sorted(p.stem[len("bench_"):] for p in here.glob("bench_*.py"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benches", nargs="*", metavar="NAME",
                        help="benches to run (default: all): " + ", ".join(names))
    parser.add_argument("--json", metavar="PATH",
                        help="write the run's record (rows and metadata) to PATH")
    args = parser.parse_args(argv)
    chosen = [n for n in names if not args.benches or n in args.benches]
    table = Table()
    for name in chosen:
        print(f"[{name}]", flush=True)
        importlib.import_module(f"bench_{name}").run(table)
    print()
    print(table.render())
    missed = [r.name for r in table.rows if r.met is False]
    if missed:
        print("\ntargets missed: " + ", ".join(missed))
    if args.json:
        path = write_record(table, args.json, run_metadata(chosen))
        print(f"\nrecord: {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
