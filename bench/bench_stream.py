"""Issue 3's rows: `with stream(s): pass`, Event.record(), current_stream(), Stream()
creation, side by side with torch, plus a few rows without targets for context."""
from harness import gpu_pair, per_call

US = 1e6


def _time(ember_fn, torch_fn, sync_e=None, sync_t=None):
    e = per_call(ember_fn, sync=sync_e) * US
    t = per_call(torch_fn, sync=sync_t) * US if torch_fn else None
    return e, t


def run(table):
    pair = gpu_pair("the stream rows")
    if pair is None:
        return
    cuda, torch = pair.ember.cuda, pair.torch
    tc = torch.cuda if torch else None
    cuda.synchronize()
    if torch:
        tc.synchronize()

    s = cuda.Stream()
    ts = tc.Stream() if torch else None

    def ember_with():
        with cuda.stream(s):
            pass

    def torch_with():
        with tc.stream(ts):
            pass

    e, t = _time(ember_with, torch_with if torch else None)
    table.add("with stream(s): pass", e, t, "us", target="<= 1.5 us", met=e <= 1.5)

    def ember_with_self():
        with s:
            pass

    e = per_call(ember_with_self) * US
    table.add("with s: pass (Stream as context)", e, None, "us")

    ev = cuda.Event()
    tev = tc.Event() if torch else None
    e, t = _time(ev.record, tev.record if torch else None, cuda.synchronize,
                 tc.synchronize if torch else None)
    table.add("Event.record()", e, t, "us", target="<= 2.5 us", met=e <= 2.5)

    with cuda.stream(s):
        e, t = _time(cuda.current_stream, None)
    if torch:
        with tc.stream(ts):
            t = per_call(tc.current_stream) * US
    table.add("current_stream()", e, t, "us", target="<= 0.5 us", met=e <= 0.5)

    e, t = _time(cuda.Stream, tc.Stream if torch else None)
    table.add("Stream() creation", e, t, "us", target="<= 2 us", met=e <= 2)

    # Context, no targets.
    s2 = cuda.Stream()
    ts2 = tc.Stream() if torch else None
    e, t = _time(lambda: s.wait_stream(s2), (lambda: ts.wait_stream(ts2)) if torch else None,
                 cuda.synchronize, tc.synchronize if torch else None)
    table.add("Stream.wait_stream(other)", e, t, "us")
    e, t = _time(s.query, ts.query if torch else None)
    table.add("Stream.query() idle", e, t, "us")
    e, t = _time(lambda: cuda.Event().record(), (lambda: tc.Event().record()) if torch else None,
                 cuda.synchronize, tc.synchronize if torch else None)
    table.add("Event() + first record()", e, t, "us")
