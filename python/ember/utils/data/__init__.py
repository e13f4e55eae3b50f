"""ember.utils.data: datasets, samplers and the DataLoader, with
torch.utils.data's names, arguments and behaviour.

    from ember.utils.data import DataLoader, TensorDataset
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True, pin_memory=True)
    for inputs, labels in loader:
        inputs = inputs.to("cuda", non_blocking=True)

Workers are threads, not processes (see ``_utils/worker.py``); with
``pin_memory=True`` a background thread prepares the next batches even with
``num_workers=0``.
"""
from ember.utils.data.dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset,
                                      StackDataset, Subset, TensorDataset, random_split)
from ember.utils.data.sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                                      SubsetRandomSampler, WeightedRandomSampler)
from ember.utils.data.dataloader import (DataLoader, _DatasetKind, default_collate,
                                         default_convert, get_worker_info)
from ember.utils.data._utils.worker import WorkerInfo

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset",
           "Subset", "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo",
           "default_collate", "default_convert", "get_worker_info", "random_split"]
