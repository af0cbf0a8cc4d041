"""Float comparison with numpy's tolerance semantics, without importing numpy."""

from __future__ import annotations

import math


def isclose(a: float, b: float, *, rtol: float = 1e-5, atol: float = 1e-8) -> bool:
    """`numpy.isclose(a, b)` for scalars: `|a - b| <= atol + rtol * |b|`.

    Asymmetric on purpose (`b` is the reference value); NaN is never close to anything, and an infinity is
    close only to the same infinity.
    """
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)
