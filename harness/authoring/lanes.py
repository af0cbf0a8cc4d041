"""A lab's lanes: moto's seats and one worker pool for all of them, set up the way every playthrough wants them."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from harness.authoring.emulator import REGION, Emulator
from harness.authoring.playthrough import Lane, LaneSession, lab_services
from harness.authoring.prestart import LANES, Prestarted
from harness.core.lab import Lab
from harness.sandbox.pool import playthrough_pool
from harness.sandbox.runner import Runner


@contextmanager
def moto_lanes(
    lab: Lab,
    count: int = LANES,
    env: Mapping[str, str] | None = None,
    prestarted: Prestarted | None = None,
    region: str | None = None,
) -> Iterator[list[Lane]]:
    """An `Emulator` with `count` seats and one started worker pool of `count` for all of them; all stopped after.

    The accounts are in `region` (by default us-east-1): the scenarios act and the steps are evaluated there.
    moto's processes get `env`, by default what the lab spec's `emulator:` asks (e.g. AWS managed policies). The
    pool's template starts first and moto's root right after, before anything waits on either: the template
    imports boto3 while the root imports moto (`prestarted`: both started before the lab was loaded; taken over
    here, its emulator only if this lab asks nothing of it); the lanes' sessions make their clients while moto's
    root starts (`LaneSession.on`). At the end the pool closes (its gateway's server takes
    up to half a second to stop) while moto's processes end.
    """
    environment = lab.spec.emulator.environment() if env is None else env
    pool = prestarted.pool if prestarted is not None and prestarted.pool.size == count else playthrough_pool(count)
    early = prestarted.emulator if prestarted is not None else None
    if early is not None and (environment or len(early.seats) != count or early.region != (region or REGION)):
        early.__exit__(None, None, None)
        early = None
    services = lab_services(lab)
    with pool, ThreadPoolExecutor(1, thread_name_prefix="lane-sessions") as making:
        pool.start()
        closing = threading.Thread(target=pool.close, name="closing-the-pool", daemon=True)
        try:
            emulator = early or Emulator(count, env=environment, services=services, region=region)
            try:
                emulator.start()  # no wait: the lanes' sessions and clients are made while moto's root starts
            except BaseException:
                emulator.__exit__(None, None, None)
                raise
            sessions = making.submit(lambda: [LaneSession.on(seat, services) for seat in emulator.seats])
            with emulator:
                pool.warn_if_degraded()
                runner = Runner(lab, pool)
                try:
                    yield [
                        Lane(runner, seat, seat.sandbox(), session)
                        for seat, session in zip(emulator.seats, sessions.result(), strict=True)
                    ]
                finally:
                    closing.start()
        finally:
            if closing.ident is not None:
                closing.join()


@contextmanager
def no_collections() -> Iterator[None]:
    """No garbage collection while the lanes play: ~0.35 s of the sample lab's CPU went to collections that walk
    the service models and modules loaded for good, for ~30 KB of cyclic garbage per scenario (collected after)."""
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()
