# Hand-written stubs for ember._C.return_types (input of tools/gen_stubs.py; see _C.pyi):
# the named tuples (values, indices) that max(dim) and min(dim) return.
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
