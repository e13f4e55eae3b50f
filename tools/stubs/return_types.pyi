# Hand-written stubs for ember._C.return_types (input of tools/gen_stubs.py; see _C.pyi):
# the named tuples (values, indices) that max(dim) and min(dim) return, and (min, max)
# that aminmax returns (a collections.namedtuple set here by ember/_composite_math.py).
from typing import Any, Final

from ember._C import Tensor


class max(tuple[Tensor, Tensor]):
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    __match_args__: Final = ("values", "indices")
    @property
    def values(self) -> Tensor: ...
    @property
    def indices(self) -> Tensor: ...
    def __reduce__(self) -> tuple[Any, ...]: ...


class min(tuple[Tensor, Tensor]):
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    __match_args__: Final = ("values", "indices")
    @property
    def values(self) -> Tensor: ...
    @property
    def indices(self) -> Tensor: ...
    def __reduce__(self) -> tuple[Any, ...]: ...


class aminmax(tuple[Tensor, Tensor]):
    _fields: Final[tuple[str, str]]
    _field_defaults: Final[dict[str, Any]]
    __match_args__: Final = ("min", "max")
    @property
    def min(self) -> Tensor: ...
    @property
    def max(self) -> Tensor: ...
    def __new__(cls, min: Tensor, max: Tensor) -> aminmax: ...
    def __getnewargs__(self) -> tuple[Tensor, Tensor]: ...
    @classmethod
    def _make(cls, iterable: Any) -> aminmax: ...
    def _asdict(self) -> dict[str, Tensor]: ...
    def _replace(self, **kwargs: Tensor) -> aminmax: ...
