"""What a process does while it starts: no cyclic garbage collection during its imports.

Importing boto3, botocore, pydantic and the harness makes ~100 collections that free next to nothing (what imports
build lives on): ~25 ms of CPU in a cold `stepeval run`, ~15 ms in the worker template. What was built is frozen
after (`gc.freeze`): turned on again without it, the collector would scan all of it at once, for as long.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collections_paused() -> Iterator[None]:
    """No cyclic collection inside (reference counting still frees what it can); what exists at the end is frozen
    (never collected: the modules, the models, the clients), then collections go on as before for the rest."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
