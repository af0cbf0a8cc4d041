"""Deprecated: moved to harness.authoring.drafts.probes (this name still imports it, with a DeprecationWarning)."""

import sys
import warnings

from harness.authoring.drafts import probes as _moved

warnings.warn(
    "harness.authoring.draft_probes moved to harness.authoring.drafts.probes", DeprecationWarning, stacklevel=2
)
sys.modules[__name__] = _moved
