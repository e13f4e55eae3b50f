"""Copying batches into pinned (page-locked) host memory.

A tensor in pinned memory copies to the GPU with ``to(device, non_blocking=True)``
without the host waiting, so the copy overlaps compute. ``pin_memory(data)``
pins every CPU tensor inside ``data`` (mappings, namedtuples, sequences, and
objects with a ``pin_memory()`` method), with torch's container rules.
Tensors already pinned are returned as they are (no copy).
"""
import collections.abc
import copy

import ember


def pin_memory(data, device=None):
    """``data`` with every tensor in it copied into pinned memory. ``device`` is
    accepted for torch's signature and ignored (pinned memory serves every GPU)."""
    if isinstance(data, ember.Tensor):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                # keep the mapping's type and extra attributes: update a copy
                clone = copy.copy(data)
                clone.update({k: pin_memory(sample, device) for k, sample in data.items()})
                return clone
            return type(data)({k: pin_memory(sample, device) for k, sample in data.items()})
        except TypeError:
            return {k: pin_memory(sample, device) for k, sample in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(pin_memory(sample, device) for sample in data))
    if isinstance(data, tuple):
        return [pin_memory(sample, device) for sample in data]  # a list, as in torch
    if isinstance(data, collections.abc.Sequence):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, item in enumerate(data):
                    clone[i] = pin_memory(item, device)
                return clone
            return type(data)([pin_memory(sample, device) for sample in data])
        except TypeError:
            return [pin_memory(sample, device) for sample in data]
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
