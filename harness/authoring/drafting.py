"""Deprecated: moved to harness.authoring.drafts.drafting (this name still imports it, with a DeprecationWarning)."""

import sys
import warnings

from harness.authoring.drafts import drafting as _moved

warnings.warn("harness.authoring.drafting moved to harness.authoring.drafts.drafting", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _moved
