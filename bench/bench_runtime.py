"""Issue 2's rows: import time, synchronize() on an idle GPU, is_available(),
current_device()."""
from harness import gpu_pair, have, import_seconds, per_call


def run(table):
    e_in, e_whole = import_seconds("ember")
    if have("torch"):
        t_in, t_whole = import_seconds("torch", runs=3)
    else:
        t_in = t_whole = None
    table.add("import (inside process)", e_in, t_in, "s", target="<= 0.15 s", met=e_in <= 0.15)
    table.add("python -c 'import X' (whole)", e_whole, t_whole, "s")

    pair = gpu_pair("the CUDA rows")
    if pair is None:
        return
    ember, torch = pair.ember, pair.torch
    ember.cuda.synchronize()
    if torch is not None:
        torch.cuda.synchronize()
    us = 1e6
    e = per_call(ember.cuda.synchronize) * us
    t = per_call(torch.cuda.synchronize) * us if torch else None
    table.add("cuda.synchronize() idle", e, t, "us", target="<= 1.5 us", met=e <= 1.5)
    e = per_call(ember.cuda.is_available) * us
    t = per_call(torch.cuda.is_available) * us if torch else None
    table.add("cuda.is_available()", e, t, "us")
    e = per_call(ember.cuda.current_device) * us
    t = per_call(torch.cuda.current_device) * us if torch else None
    table.add("cuda.current_device()", e, t, "us")
