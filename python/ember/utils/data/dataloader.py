"""DataLoader: batches from a dataset, optionally shuffled, pinned, and
prepared ahead in background threads (torch.utils.data.dataloader's API).

Differences from torch, all deliberate:
- Workers are threads (``_utils/worker.py`` says why and what that changes).
  ``num_workers=N`` starts N worker threads; batches still come out in sampler
  order (unless ``in_order=False``), ``prefetch_factor`` batches ahead per worker.
- With ``num_workers=0``, torch loads in the calling thread. ember does too,
  except when ``pin_memory=True`` (and a GPU is there): one background thread
  then fetches, collates and pins the next batches while the loop runs
  (``prefetch_factor``, if given, else 2, batches ahead). ``prefetch_thread``
  (ember's own keyword) forces that thread on (True) or off (False); None is the
  rule above.
- ``persistent_workers`` is validated as in torch and otherwise ignored:
  threads start in microseconds, so each epoch starts fresh ones.
  ``multiprocessing_context`` is validated as in torch and ignored. No warning
  about more workers than cores (threads are cheap).
- Worker threads are always stopped and joined when the iterator is exhausted,
  garbage-collected, or left by ``break``.
"""
import atexit
import itertools
import queue
import sys
import threading
import warnings
import weakref

import ember
from ember.utils.data import _utils
from ember.utils.data._utils import rng
from ember.utils.data._utils.collate import default_collate, default_convert
from ember.utils.data._utils.pin_memory import pin_memory as _pin
from ember.utils.data._utils.worker import (_Failure, _IterableDatasetStopIteration,
                                            _worker_loop, get_worker_info)
from ember.utils.data.dataset import IterableDataset
from ember.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        if kind == _DatasetKind.Map:
            return _utils.fetch._MapDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)
        return _utils.fetch._IterableDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)


class _InfiniteConstantSampler(Sampler):
    """None forever: the sampler of an IterableDataset."""

    def __iter__(self):
        while True:
            yield None


def _accelerator_available():
    return ember.cuda.is_available()


class DataLoader:
    """Iterates over ``dataset`` in batches.

    Args (torch's, with torch's defaults and checks):
        dataset: a map-style ``Dataset`` (``__getitem__``/``__len__``) or an
            ``IterableDataset``.
        batch_size: samples per batch (None: no batching, samples one by one).
        shuffle: a new random order every epoch (map-style datasets).
        sampler / batch_sampler: custom index orders (exclusive with shuffle;
            batch_sampler also with batch_size, sampler and drop_last).
        num_workers: worker threads (0: the calling thread loads, see
            ``prefetch_thread``).
        collate_fn: merges a list of samples into a batch (``default_collate``).
        pin_memory: batches come back in pinned host memory, ready for
            ``.to("cuda", non_blocking=True)``. Warns and is ignored without a GPU.
        drop_last: drop the last, incomplete batch.
        timeout: seconds to wait for a batch from the workers (0: forever).
        worker_init_fn: called in each worker thread with its id before loading.
        generator: the generator shuffling draws from (and the workers' base seed).
        prefetch_factor: batches loaded ahead per worker (default 2 with workers).
        persistent_workers, multiprocessing_context: validated, ignored (threads).
        pin_memory_device: deprecated as in torch (warns when given).
        in_order: False lets worker batches come out as soon as they are ready.
        prefetch_thread: ember only; see the module docstring.
    """

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True, prefetch_thread=None):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if prefetch_thread is False and num_workers > 0:
            raise ValueError(f"prefetch_thread=False loads in the calling thread, but "
                             f"num_workers={num_workers} asks for worker threads: set "
                             f"num_workers=0 or leave prefetch_thread unset")
        if num_workers == 0 and prefetch_factor is not None and prefetch_thread is not True:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor "
                "to None. (ember: or prefetch_thread=True for a background thread)")
        elif num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self.prefetch_thread = prefetch_thread

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")

        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)

        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        if multiprocessing_context is not None:
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 "loading (num_workers > 0), but got "
                                 f"num_workers={self.num_workers}")
            import multiprocessing
            if isinstance(multiprocessing_context, str):
                valid = multiprocessing.get_all_start_methods()
                if multiprocessing_context not in valid:
                    raise ValueError("multiprocessing_context option should specify a valid start "
                                     f"method in {valid!r}, but got "
                                     f"multiprocessing_context={multiprocessing_context!r}")
                multiprocessing_context = multiprocessing.get_context(multiprocessing_context)
            if not isinstance(multiprocessing_context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object "
                                "or a string specifying the start method, but got "
                                f"multiprocessing_context={multiprocessing_context}")
        self.__multiprocessing_context = multiprocessing_context

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                           "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def _uses_thread(self, pin):
        if self.num_workers > 0 or self.prefetch_thread:
            return True
        return self.prefetch_thread is None and pin

    def _get_iterator(self):
        pin = self.pin_memory and _accelerator_available()
        if self._uses_thread(pin):
            return _ThreadedDataLoaderIter(self)
        if self.timeout > 0:
            raise ValueError(f"timeout={self.timeout} applies to batches prepared by worker or "
                             "background threads, and this DataLoader loads in the calling "
                             "thread: set num_workers > 0 or prefetch_thread=True, or timeout=0")
        return _SingleProcessDataLoaderIter(self)

    def __iter__(self):
        return self._get_iterator()

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if self._dataset_kind == _DatasetKind.Iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    length = length // self.batch_size
                else:
                    length = -(-length // self.batch_size)
            return length
        return len(self._index_sampler)


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be used "
                          f"as the device,ignore pin_memory_device='{loader.pin_memory_device}'.",
                          stacklevel=3)
        accelerator = _accelerator_available() if loader.pin_memory else False
        if loader.pin_memory and not accelerator:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
        self._pin_memory = loader.pin_memory and accelerator
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # One draw from the generator per epoch, as torch: the workers' base seed.
        self._base_seed = rng.random_seed(loader.generator)
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _next_index(self):
        return next(self._sampler_iter)  # may raise StopIteration

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if self._dataset_kind == _DatasetKind.Iterable and \
                self._IterableDataset_len_called is not None and \
                self._num_yielded > self._IterableDataset_len_called:
            msg = (f"Length of IterableDataset {self._dataset} was reported to be "
                   f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                   f"{self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly "
                        "configuring the IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset"
                        " for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError(f"{self.__class__.__name__} cannot be pickled")


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Loads each batch in the calling thread, when asked."""

    def __init__(self, loader):
        super().__init__(loader)
        self._dataset_fetcher = _DatasetKind.create_fetcher(
            self._dataset_kind, self._dataset, self._auto_collation, self._collate_fn,
            self._drop_last)

    def _next_data(self):
        index = self._next_index()  # may raise StopIteration
        data = self._dataset_fetcher.fetch(index)  # may raise StopIteration
        if self._pin_memory:
            data = _pin(data)
        return data


def _worker_dataset(dataset):
    """A worker's own shallow copy of the dataset (the dataset itself if it
    cannot be copied)."""
    import copy
    try:
        return copy.copy(dataset)
    except Exception:  # noqa: BLE001
        return dataset


# Iterators whose worker threads may be running. At exit their workers are
# stopped and joined before the interpreter finalizes: a daemon thread that is
# inside a C++ call (GIL released) when finalization starts is killed with
# pthread_exit, which unwinds through C++ frames and aborts the process.
_live_iterators = weakref.WeakSet()


@atexit.register
def _stop_all_workers():
    for it in list(_live_iterators):
        it._shutdown_workers()


class _ThreadedDataLoaderIter(_BaseDataLoaderIter):
    """Batches prepared (fetched, collated, pinned) by worker threads, handed
    out in order.

    The calling thread owns the sampler: it keeps up to ``prefetch_factor``
    tasks per worker queued (round robin over the workers still running) and
    takes results from one queue, holding back those that arrive early. The
    workers hold no reference to this object: when it is exhausted or
    collected, ``_shutdown_workers`` tells them to stop and joins them.
    """

    def __init__(self, loader):
        super().__init__(loader)
        is_worker = self._num_workers > 0
        n = self._num_workers if is_worker else 1
        self._n = n
        pf = 2 if loader.prefetch_factor is None else loader.prefetch_factor
        self._max_tasks = max(1, pf * n)
        self._in_order = loader.in_order
        self._shutdown = True  # until the workers exist
        self._result_queue = queue.SimpleQueue()
        self._done_event = threading.Event()
        device = None
        if ember.cuda.is_initialized():
            # the workers' CUDA calls (pinning) go to the device in use here
            device = ember.cuda.current_device()
        self._index_queues = []
        self._workers = []
        for i in range(n):
            q = queue.SimpleQueue()
            t = threading.Thread(
                target=_worker_loop, name=f"ember DataLoader worker {i}", daemon=True,
                args=(self._dataset_kind,
                      _worker_dataset(self._dataset) if is_worker else self._dataset,
                      q, self._result_queue, self._done_event, self._auto_collation,
                      self._collate_fn, self._drop_last, self._pin_memory, self._base_seed + i,
                      loader.worker_init_fn if is_worker else None, i, n, device, is_worker))
            self._index_queues.append(q)
            self._workers.append(t)
        self._shutdown = False
        _live_iterators.add(self)
        for t in self._workers:
            t.start()
        self._send_idx = 0            # index of the next task to send
        self._rcvd_idx = 0            # index of the next batch to return
        self._task_info = {}          # task -> (worker,) or (worker, data) when early
        self._tasks_outstanding = 0
        self._workers_status = [True] * n
        self._worker_queue_idx_cycle = itertools.cycle(range(n))
        for _ in range(self._max_tasks):
            self._try_put_index()

    def _try_put_index(self):
        if self._tasks_outstanding >= self._max_tasks:
            return
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._n):
            worker = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker]:
                break
        else:
            return  # no worker left
        self._index_queues[worker].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _get_data(self):
        # Wait in slices so that a worker thread that died is noticed.
        remaining = self._timeout if self._timeout > 0 else None
        while True:
            wait = 5.0 if remaining is None else min(remaining, 5.0)
            try:
                return self._result_queue.get(timeout=wait)
            except queue.Empty:
                pass
            if remaining is not None:
                remaining -= wait
                if remaining <= 0:
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            dead = [i for i, t in enumerate(self._workers) if not t.is_alive()]
            if dead and self._result_queue.empty():
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader worker thread(s) {dead} exited unexpectedly")

    def _next_data(self):
        while True:
            # Skip the tasks of workers whose iterable dataset ended.
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None:
                    if len(info) == 2 or self._workers_status[info[0]]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                self._shutdown_workers()
                raise StopIteration

            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:  # it arrived early
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process_data(info[1])

            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(data, _IterableDatasetStopIteration):
                self._workers_status[data.worker_id] = False
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    del self._task_info[idx]
                    return self._process_data(data)
                self._task_info[idx] += (data,)
            else:
                del self._task_info[idx]
                self._rcvd_idx += 1
                return self._process_data(data)

    def _process_data(self, data):
        self._try_put_index()
        if isinstance(data, _Failure):
            data.reraise()
        return data

    def _shutdown_workers(self):
        """Stops and joins the worker threads; idempotent."""
        if self._shutdown:
            return
        self._shutdown = True
        self._done_event.set()
        for q in self._index_queues:
            q.put(None)
        me = threading.current_thread()
        for t in self._workers:
            if t is not me and t.ident is not None:  # (started, and not this thread)
                t.join()
        # Batches prepared ahead and never taken (pinned memory) go now.
        self._task_info.clear()
        while not self._result_queue.empty():
            self._result_queue.get_nowait()

    def __del__(self):
        # At interpreter exit the (daemon) workers may already be frozen: leave them.
        if getattr(self, "_shutdown", True) or sys.is_finalizing():
            return
        self._shutdown_workers()
