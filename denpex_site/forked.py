"""A function run in a forked child process while the parent goes on.

The child inherits the parent's memory (the loaded content, the site), so nothing is pickled on
the way in; the result, or the exception the function raised, comes back through a pipe. Used to
derive entries while others load.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Generic, TypeVar

T = TypeVar("T")


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _run(send: Connection, job: Callable[[], object]) -> None:
    try:
        result = job()
    except BaseException as exc:  # the parent raises it
        result = exc
    send.send(result)
    send.close()


class Forked(Generic[T]):
    """``job()`` started in a forked child; :meth:`result` waits for what it returns."""

    def __init__(self, job: Callable[[], T]) -> None:
        self._receive, send = multiprocessing.Pipe(duplex=False)
        self._proc = multiprocessing.get_context("fork").Process(target=_run, args=(send, job), daemon=True)
        self._proc.start()
        send.close()

    def result(self) -> T:
        """The job's return value; raises what it raised, or RuntimeError if the child died."""
        try:
            got = self._receive.recv()
        except EOFError:
            self._proc.join()
            raise RuntimeError(f"a worker process died (exit code {self._proc.exitcode})") from None
        finally:
            self._receive.close()
        self._proc.join()
        if isinstance(got, BaseException):
            raise got
        return got

    def cancel(self) -> None:
        """Stop the child (if it still runs) and release the pipe."""
        if self._proc.is_alive():
            self._proc.kill()
        self._proc.join()
        self._receive.close()
