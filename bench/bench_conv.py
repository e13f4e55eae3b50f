"""Issue 9's convolution rows, ember and torch side by side in one process (same weights and
data, float32, TF32 off on both sides so both compute in full float32):
  - the two-branch model: branch_a = Conv2d(3, 64, 3, padding=1) + ReLU and branch_b the same,
    each on its own stream (joined by wait_stream), out = a + b, loss = out.mean(),
    forward + backward, batch 64, input 3x256x256 not requiring grad; target <= 1.1x torch.
    The floor: each branch's output is 64*64*256*256*4 B = 1 GiB, written in forward and read
    in backward (the FLOPs are small: C*kh*kw = 27);
  - one Conv2d(64, 64, 3, padding=1) forward + backward on 64x64x64x64 (input requiring
    grad: grad_input, grad_weight, grad_bias).
"""
import sys

from harness import gpu_pair, wall_seconds


class _TwoBranch:
    def __init__(self, lib, device):
        nn = lib.nn
        self.lib = lib
        self.a = nn.Conv2d(3, 64, 3, padding=1).to(device)
        self.b = nn.Conv2d(3, 64, 3, padding=1).to(device)
        self.relu = nn.ReLU()
        self.sa = lib.cuda.Stream()
        self.sb = lib.cuda.Stream()

    def parameters(self):
        return [*self.a.parameters(), *self.b.parameters()]

    def __call__(self, x):
        cuda = self.lib.cuda
        cur = cuda.current_stream()
        self.sa.wait_stream(cur)
        self.sb.wait_stream(cur)
        with cuda.stream(self.sa):
            a = self.relu(self.a(x))
        with cuda.stream(self.sb):
            b = self.relu(self.b(x))
        cur.wait_stream(self.sa)
        cur.wait_stream(self.sb)
        return a + b


def _copy_params(torch, src, dst):
    with torch.no_grad():
        for s, d in zip(src, dst):
            d.copy_(torch.from_numpy(s.detach().cpu().numpy()))


def _step(model, x):
    def step():
        for p in model.parameters():
            p.grad = None
        loss = model(x).mean()
        loss.backward()
        return loss
    return step


def _conv_step(lib, conv, x):
    def step():
        for p in conv.parameters():
            p.grad = None
        x.grad = None
        out = conv(x)
        out.backward(out)
    return step


def _timed(step, sync):
    return wall_seconds(step, sync, repeat=10, warmup=3)


def run(table):
    import numpy as np

    pair = gpu_pair("the convolution rows")
    if pair is None:
        return
    ember, torch, e_sync, t_sync = pair.ember, pair.torch, pair.e_sync, pair.t_sync
    if torch is not None:
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.benchmark = True
    rng = np.random.default_rng(0)

    xs = rng.standard_normal((64, 3, 256, 256)).astype(np.float32)
    em = _TwoBranch(ember, "cuda")
    ex = ember.tensor(xs, device="cuda")
    e = _timed(_step(em, ex), e_sync) * 1e3
    t = None
    if torch:
        tm = _TwoBranch(torch, "cuda")
        _copy_params(torch, em.parameters(), tm.parameters())
        tx = torch.from_numpy(xs).cuda()
        t = _timed(_step(tm, tx), t_sync) * 1e3
    table.add("two-branch Conv2d(3,64,3)+ReLU, 2 streams, b64 256x256 fwd+bwd", e, t, "ms",
              target="<= 1.1x torch", met=(e <= 1.1 * t) if t else None)

    xs = rng.standard_normal((64, 64, 64, 64)).astype(np.float32)
    ec = ember.nn.Conv2d(64, 64, 3, padding=1).to("cuda")
    ex = ember.tensor(xs, device="cuda").requires_grad_()
    e = _timed(_conv_step(ember, ec, ex), e_sync) * 1e3
    t = None
    if torch:
        tc = torch.nn.Conv2d(64, 64, 3, padding=1).cuda()
        _copy_params(torch, ec.parameters(), tc.parameters())
        tx = torch.from_numpy(xs).cuda().requires_grad_()
        t = _timed(_conv_step(torch, tc, tx), t_sync) * 1e3
    table.add("Conv2d(64,64,3,p=1) fwd+bwd 64x64x64x64 fp32", e, t, "ms", target="report",
              met=None)


if __name__ == "__main__":
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from harness import Table
    table = Table()
    run(table)
    print(table.render())
