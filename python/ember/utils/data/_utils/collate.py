"""Merging samples into batches (torch.utils.data._utils.collate's API).

``default_collate`` stacks tensors, turns numbers and NumPy arrays into
tensors, keeps strings, and recurses through mappings, namedtuples and other
sequences, with torch's rules and output types (a batch of tuples becomes a
list, as in torch). ``collate`` with a ``collate_fn_map`` is the extensible
form. NumPy is never imported here: NumPy entries join ``default_collate_fn_map``
the first time a batch is collated in a process that has NumPy loaded (an
ndarray in a batch proves it is).
"""
import collections.abc
import copy
import re
import sys

import ember

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}"
)


def _is_numpy(obj):
    t = type(obj)
    return t.__module__ == "numpy" and t.__name__ not in ("str_", "string_", "bytes_")


def _numpy_as_tensor(data):
    # Through np.asarray: NumPy scalars, and lists of them, keep their dtype and
    # shape (a scalar becomes a 0-d tensor), as torch.as_tensor gives.
    return ember.as_tensor(sys.modules["numpy"].asarray(data))


def default_convert(data):
    """Converts NumPy arrays (and NumPy scalars) inside ``data`` into tensors,
    recursing through mappings and sequences; anything else is returned as is.
    The collate function of a DataLoader with ``batch_size=None``."""
    elem_type = type(data)
    if isinstance(data, ember.Tensor):
        return data
    if _is_numpy(data):
        # arrays of strings and objects stay as they are
        if elem_type.__name__ in ("ndarray", "memmap") and \
                np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return _numpy_as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                # keep the mapping's type and extra attributes: update a copy
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as in torch
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map=None):
    """Collates ``batch`` (a list of samples), dispatching on the type of its
    first element: an exact match in ``collate_fn_map`` first, then the first
    key it is an instance of (in insertion order), then mappings, namedtuples
    and sequences recursively. Each function of the map is called as
    ``fn(batch, collate_fn_map=collate_fn_map)``."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        fn = collate_fn_map.get(elem_type)
        if fn is not None:
            return fn(batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                              for key in elem})
                return clone
            return elem_type({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                              for key in elem})
        except TypeError:
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                    for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map)
                              for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return ember.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([ember.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _numpy_as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return ember.tensor(batch, dtype=ember.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return ember.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {ember.Tensor: collate_tensor_fn}
default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn
default_collate_fn_map[str] = collate_str_fn
default_collate_fn_map[bytes] = collate_str_fn

_numpy_registered = False


def _register_numpy():
    """Adds NumPy's entries to default_collate_fn_map right after Tensor's (torch's
    order), keeping whatever else the map holds."""
    global _numpy_registered
    np = sys.modules["numpy"]
    items = list(default_collate_fn_map.items())
    default_collate_fn_map.clear()
    default_collate_fn_map[items[0][0]] = items[0][1]
    default_collate_fn_map.setdefault(np.ndarray, collate_numpy_array_fn)
    default_collate_fn_map.setdefault((np.bool_, np.number, np.object_), collate_numpy_scalar_fn)
    for k, v in items[1:]:
        default_collate_fn_map[k] = v
    _numpy_registered = True


def default_collate(batch):
    """Puts each data field of the samples in ``batch`` into a tensor with a new
    outer dimension of size ``len(batch)``:

    * Tensor -> Tensor (stacked); NumPy array -> Tensor; NumPy scalar -> Tensor
    * float -> float64 Tensor; int -> int64 Tensor (bool -> bool Tensor)
    * str, bytes -> unchanged (a list)
    * Mapping[K, V_i] -> Mapping[K, default_collate([V_1, V_2, ...])]
    * NamedTuple -> NamedTuple of collated fields
    * Sequence[V1_i, V2_i, ...] -> Sequence[default_collate([V1_1, V1_2, ...]), ...]
      (tuples become lists, as in torch)
    """
    if not _numpy_registered and "numpy" in sys.modules:
        _register_numpy()
    return collate(batch, collate_fn_map=default_collate_fn_map)
