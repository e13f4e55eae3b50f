"""Turning an index (or a list of indices) into a batch: torch's fetchers.

One extra path: a ``TensorDataset`` of CPU tensors collated by
``default_collate`` is batched with one gather per tensor (``t[indices]``, or a
copy of a slice for consecutive indices) instead of one view per sample and a
stack; the result is the same (the list ``default_collate`` makes of tuples of
tensors) at a fraction of the cost.
"""
import ember
from ember.utils.data._utils.collate import default_collate


class _BaseDatasetFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, possibly_batched_index):
        raise NotImplementedError


class _IterableDatasetFetcher(_BaseDatasetFetcher):
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in possibly_batched_index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(possibly_batched_index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


class _MapDatasetFetcher(_BaseDatasetFetcher):
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        from ember.utils.data.dataset import TensorDataset  # (dataset.py imports _utils)
        self._gather = (auto_collation and collate_fn is default_collate
                        and type(dataset) is TensorDataset
                        and all(isinstance(t, ember.Tensor) and t.is_cpu
                                for t in dataset.tensors))

    def fetch(self, possibly_batched_index):
        if self.auto_collation:
            if self._gather and possibly_batched_index and \
                    all(type(i) is int for i in possibly_batched_index):
                return self._gather_batch(possibly_batched_index)
            getitems = getattr(self.dataset, "__getitems__", None)
            if getitems:
                data = getitems(possibly_batched_index)
            else:
                data = [self.dataset[idx] for idx in possibly_batched_index]
        else:
            data = self.dataset[possibly_batched_index]
        return self.collate_fn(data)

    def _gather_batch(self, index):
        tensors = self.dataset.tensors
        first, n = index[0], len(index)
        if 0 <= first and first + n <= len(tensors[0]) and index == list(range(first, first + n)):
            # consecutive rows (sequential sampling): one contiguous copy
            return [t[first:first + n].clone() for t in tensors]
        return [t[index] for t in tensors]
