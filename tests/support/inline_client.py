"""A stand-in for a Dask client of two workers that runs each task at once, here: the fan-out's
code (batches, their order, the merge) without starting a cluster."""

from __future__ import annotations

from typing import Any


class InlineClient:
    class _Done:
        def __init__(self, value: Any) -> None:
            self.value = value

        def done(self) -> bool:
            return True

        def result(self) -> Any:
            return self.value

    def scheduler_info(self, n_workers: int = 0) -> dict[str, Any]:
        return {"workers": {"a": {}, "b": {}}}

    def submit(self, fn: Any, *args: Any, pure: bool = True) -> InlineClient._Done:
        return self._Done(fn(*args))

    def cancel(self, futures: Any) -> None:
        pass
