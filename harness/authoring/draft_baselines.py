"""Deprecated: moved to harness.authoring.drafts.baselines (this name still imports it, with a DeprecationWarning)."""

import sys
import warnings

from harness.authoring.drafts import baselines as _moved

warnings.warn(
    "harness.authoring.draft_baselines moved to harness.authoring.drafts.baselines", DeprecationWarning, stacklevel=2
)
sys.modules[__name__] = _moved
