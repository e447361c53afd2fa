"""A small readers-writer lock: many fits on one host at once, claims alone.

Writers are preferred: once a writer waits, new readers wait behind it, so
a claim or a close() is not starved by a steady stream of fits.  The lock
is not reentrant: a thread holding it must not take it again (a second
read could wait behind a writer that waits for the first).  Code that
needs several objects' locks takes them through _ffi.hold(), in one global
order.
"""
import threading


class RWLock:
    __slots__ = ("_mutex", "_cond", "_readers", "_writer", "_waiting")

    def __init__(self):
        # the state is guarded by _mutex (a plain lock: cheap to take on
        # every fit); _cond, over the same lock, is only for waiting
        self._mutex = threading.Lock()
        self._cond = threading.Condition(self._mutex)
        self._readers = 0
        self._writer = False
        self._waiting = 0  # writers waiting

    def acquire_read(self):
        with self._mutex:
            while self._writer or self._waiting:
                self._cond.wait()
            self._readers += 1

    def release_read(self):
        with self._mutex:
            self._readers -= 1
            if not self._readers and self._waiting:
                self._cond.notify_all()

    def acquire_write(self):
        with self._mutex:
            self._waiting += 1
            try:
                while self._writer or self._readers:
                    self._cond.wait()
            except BaseException:
                self._waiting -= 1
                self._cond.notify_all()  # readers may wait behind this writer
                raise
            self._waiting -= 1
            self._writer = True

    def release_write(self):
        with self._mutex:
            self._writer = False
            self._cond.notify_all()

    def read(self):
        """`with lock.read():` shared access."""
        return _Read(self)

    def write(self):
        """`with lock.write():` exclusive access."""
        return _Write(self)


class _Read:
    """`with lock.read():` (a plain class: cheaper than a contextlib
    generator on every fit)."""
    __slots__ = ("_lock",)

    def __init__(self, lock):
        self._lock = lock

    def __enter__(self):
        self._lock.acquire_read()

    def __exit__(self, *exc):
        self._lock.release_read()


class _Write(_Read):
    __slots__ = ()

    def __enter__(self):
        self._lock.acquire_write()

    def __exit__(self, *exc):
        self._lock.release_write()
