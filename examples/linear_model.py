"""An nn.Linear model moved to the GPU, and its forward pass.

    python examples/linear_model.py [--batch 64] [--features 784] [--classes 10]

The guides' model step: build a module on the CPU, move its parameters to the
device with .to(device), move the input batch there too, and call the model.
The output stays on the device until .cpu() / .item() bring it back.
"""
import argparse

import ember
import ember.nn as nn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--batch", type=int, default=64)
parser.add_argument("--features", type=int, default=784)
parser.add_argument("--classes", type=int, default=10)
args = parser.parse_args()

device = "cuda" if ember.cuda.is_available() else "cpu"
print(f"using {device}")

ember.manual_seed(0)                       # reproducible initial weights and input
model = nn.Linear(args.features, args.classes)
print(model, "on", model.weight.device)
model = model.to(device)                   # parameters now live on the device
print("after .to(device):", model.weight.device)

x = ember.randn(args.batch, args.features).to(device)
with ember.no_grad():                      # inference: no graph recorded
    logits = model(x)
print(f"logits: {tuple(logits.shape)} on {logits.device}, dtype {logits.dtype}")

# The same product by hand: x @ W.T + b.
by_hand = x @ model.weight.T + model.bias
print(f"matches x @ W.T + b: {(logits - by_hand).abs().max().item() <= 1e-4}")
print(f"predicted classes of the first 8 rows: {logits.argmax(dim=1)[:8].tolist()}")
