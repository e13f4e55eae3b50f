"""Mistakes that mypy must report, each on the line its ``# E: <code>`` comment marks
(tests/test_typing.py checks that exactly these are reported). Not run."""
import ember

x = ember.zeros(3)
s: str = x + 1  # E: assignment
n: int = x.shape  # E: assignment
ember.zeross(3)  # E: attr-defined
x.nonexistent_method()  # E: attr-defined
ember.zeros("3")  # E: arg-type
x.reshape(2, "a")  # E: call-overload
x.to(device=3.5)  # E: call-overload
ember.cat(x)  # E: arg-type
ember.cuda.Stream(priority="high")  # E: arg-type
x.sum(keepdim="yes")  # E: arg-type
flag: bool = x > 0  # E: assignment
