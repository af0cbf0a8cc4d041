"""Deprecated: moved to harness.authoring.drafts.refs (this name still imports it, with a DeprecationWarning)."""

import sys
import warnings

from harness.authoring.drafts import refs as _moved

warnings.warn("harness.authoring.draft_refs moved to harness.authoring.drafts.refs", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _moved
