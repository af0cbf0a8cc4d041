"""Where a command-line evaluation reaches: a named profile, the standard chain, or an emulator endpoint."""

from __future__ import annotations

import os
from urllib.parse import urlparse

from harness.core.account import EMULATOR_CREDENTIALS, Account, Credentials
from harness.core.errors import BadInput
from harness.core.paths import DEFAULT_REGION, environment_region


def check_endpoint_url(url: str) -> str:
    """An http(s) URL with a host, or BadInput."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise BadInput(f"--endpoint-url {url!r} is not an http(s) URL such as http://127.0.0.1:5000")
    return url


def resolve_sandbox(*, profile: str | None, region: str | None, endpoint_url: str | None) -> Account:
    """Credentials and region for a dry-run.

    With --profile, that profile's credentials; with only --endpoint-url, the AWS_* variables if set, else
    dummy credentials an emulator accepts; otherwise the standard chain (variables, default profile, SSO...).
    """
    if endpoint_url:
        check_endpoint_url(endpoint_url)
    env_region = environment_region()
    if endpoint_url and not profile:
        key, secret = os.environ.get("AWS_ACCESS_KEY_ID"), os.environ.get("AWS_SECRET_ACCESS_KEY")
        credentials = Credentials(key, secret, os.environ.get("AWS_SESSION_TOKEN")) if key and secret else None
        return Account(credentials or EMULATOR_CREDENTIALS, region or env_region or DEFAULT_REGION, endpoint_url)
    import botocore.session  # only here: the emulator path above stays free of botocore's start-up cost
    from botocore.exceptions import BotoCoreError, ProfileNotFound

    core = botocore.session.Session(profile=profile)
    try:
        found = core.get_credentials()
        profile_region = core.get_config_variable("region")
    except ProfileNotFound:
        raise BadInput(f"--profile {profile!r}: no such AWS profile in your AWS config") from None
    except BotoCoreError as exc:
        raise BadInput(f"cannot load AWS credentials: {exc}") from None
    if found is None:
        where = f"profile {profile!r}" if profile else "the environment, ~/.aws or instance metadata"
        raise BadInput(f"no AWS credentials in {where}: use --profile, or --endpoint-url for an emulator")
    frozen = found.get_frozen_credentials()
    return Account(
        Credentials(frozen.access_key, frozen.secret_key, frozen.token),
        region or profile_region or env_region or DEFAULT_REGION,
        endpoint_url,
    )
