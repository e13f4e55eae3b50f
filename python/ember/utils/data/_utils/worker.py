"""The DataLoader's worker loop. ember's workers are threads, not processes.

Why threads: CUDA is not fork-safe (a forked child of a process that used the
GPU cannot use it), spawning processes costs seconds and pickles the dataset,
and batches made in another process must travel through shared memory and be
copied again to be pinned. A thread fetches, collates and pins a batch in the
process's own memory; ember's copies, ``stack`` and ``pin_memory()`` release the
GIL, so that work overlaps the training loop. Python code in ``__getitem__``
still holds the GIL while it runs.

What that changes from torch:
- ``num_workers=N`` starts N threads. Each works on its own shallow copy
  (``copy.copy``) of the dataset, so per-worker state set in ``__iter__`` or
  ``worker_init_fn`` (file handles, ``start``/``end`` of an iterable dataset)
  stays per worker as with torch's processes; objects the dataset refers to
  (tensors, lists) are shared, not copied. Datasets that cannot be copied are
  shared.
- ``get_worker_info()`` works in the worker threads (``id``, ``num_workers``,
  ``seed``, ``dataset``: that worker's copy); it is None elsewhere.
- The workers do not reseed ``random``, NumPy or ember: those states belong to
  the whole process, and reseeding them from a worker would change the main
  thread's numbers. ``get_worker_info().seed`` (base seed + worker id, as in
  torch) is there to seed a per-worker generator.
- An exception raised in a worker reaches the caller of ``next()`` as the same
  exception object with its original traceback (torch re-raises a copy whose
  message holds the traceback text).
"""
import threading

from ember.utils.data._utils.pin_memory import pin_memory

_local = threading.local()


class WorkerInfo:
    """What a worker thread knows about itself: ``id``, ``num_workers``,
    ``seed`` and ``dataset`` (the worker's copy). Read-only."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = [f"{k}={getattr(self, k)}" for k in self.__keys]
        return f"{self.__class__.__name__}({', '.join(items)})"


def get_worker_info():
    """The ``WorkerInfo`` of the calling DataLoader worker thread, or None when
    called from any other thread (the main thread, or the single background
    thread of a DataLoader with ``num_workers=0``)."""
    return getattr(_local, "info", None)


class _IterableDatasetStopIteration:
    """A worker's iterable dataset is exhausted."""

    __slots__ = ("worker_id",)

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _Failure:
    """An exception raised while a worker prepared a batch, re-raised by the
    consumer with its original traceback."""

    __slots__ = ("exc", "where")

    def __init__(self, exc, where):
        self.exc = exc
        self.where = where

    def reraise(self):
        exc, self.exc = self.exc, None
        if hasattr(exc, "add_note"):  # Python >= 3.11
            exc.add_note(f"(raised in {self.where})")
        try:
            raise exc
        finally:
            # no cycle exception -> traceback -> this frame -> exception: the
            # iterator in the frames above must be freed (stopping its workers)
            # as soon as the caller drops the exception
            exc = None


def _fetch(fetcher, index, pin, where, iterable):
    try:
        data = fetcher.fetch(index)
        return pin_memory(data) if pin else data
    except StopIteration as e:
        if iterable:
            raise
        return _Failure(e, where)
    except BaseException as e:  # noqa: BLE001  (SystemExit too: the consumer re-raises it)
        return _Failure(e, where)


def _worker_loop(dataset_kind, dataset, index_queue, result_queue, done_event, auto_collation,
                 collate_fn, drop_last, pin, seed, init_fn, worker_id, num_workers, device,
                 is_worker):
    """Runs in a worker thread: takes ``(task index, sampler index)`` from
    ``index_queue`` until it gets None, and puts ``(task index, batch)`` on
    ``result_queue``. Holds no reference to the iterator that started it, so
    that the iterator can be collected (and stop its workers) while they run."""
    from ember.utils.data.dataloader import _DatasetKind

    where = (f"DataLoader worker thread {worker_id}" if is_worker
             else "the DataLoader's background thread")
    if is_worker:
        _local.info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                 dataset=dataset)
    init_failure = None
    fetcher = None
    try:
        if device is not None:
            import ember
            ember.cuda.set_device(device)
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                              drop_last)
    except BaseException as e:  # noqa: BLE001
        init_failure = _Failure(e, where)

    iterable = dataset_kind == _DatasetKind.Iterable
    iteration_end = False
    while True:
        r = index_queue.get()
        if r is None:
            break
        if done_event.is_set() or iteration_end:
            continue  # shutting down or exhausted: wait for the final None
        idx, index = r
        if init_failure is not None:
            data, init_failure = init_failure, None
        elif fetcher is None and iterable:  # failed to start: this worker's stream is empty
            data = _IterableDatasetStopIteration(worker_id)
            iteration_end = True
        elif fetcher is None:
            data = _Failure(RuntimeError(f"{where} could not start (its worker_init_fn or "
                                         "dataset iterator raised earlier): no batch from it"),
                            where)
        else:
            try:
                data = _fetch(fetcher, index, pin, where, iterable)
            except StopIteration:
                data = _IterableDatasetStopIteration(worker_id)
                iteration_end = True
        result_queue.put((idx, data))
        del data, idx, index, r  # drop this batch before waiting for the next task
    # Release the worker's fetcher (and its dataset iterator) before exiting.
    del fetcher
    if is_worker:
        _local.info = None
