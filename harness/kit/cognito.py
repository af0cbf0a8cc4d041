"""Cognito validators: a user pool (sign-in, MFA, password policy; id = its Id, `REGION_xxx`) and a user pool
client (its pool, secret, auth and OAuth flows; id = `POOL_ID|CLIENT_ID`, as Cloud Control writes it)."""

from __future__ import annotations

from typing import Any

from harness.kit import refs
from harness.kit.bounds import Bound
from harness.kit.kinds import Kind, Resource, register
from harness.kit.later import later
from harness.kit.require import Requirement, require


def _fetch_pool(session: Any, pool_id: str) -> Resource:
    pool_id = pool_id.rsplit("/", 1)[-1]  # an ARN's last part is the pool's id
    return session.client("cognito-idp").describe_user_pool(UserPoolId=pool_id)["UserPool"]


def _fetch_client(session: Any, client_id: str) -> Resource:
    pool_id, _, app_id = client_id.partition("|")
    answer = session.client("cognito-idp").describe_user_pool_client(UserPoolId=pool_id, ClientId=app_id)
    return answer["UserPoolClient"]


USER_POOL = register(Kind("AWS::Cognito::UserPool", "user pool", _fetch_pool))
"""`describe_user_pool`'s pool: `{"Id", "Name", "Arn", "MfaConfiguration": "OFF" | "ON" | "OPTIONAL",
"UsernameAttributes": ["email"], "AliasAttributes", "AutoVerifiedAttributes", "Policies": {"PasswordPolicy":
{"MinimumLength", "RequireUppercase", "RequireLowercase", "RequireNumbers", "RequireSymbols"}}}`."""

USER_POOL_CLIENT = register(
    Kind(
        "AWS::Cognito::UserPoolClient",
        "user pool client",
        _fetch_client,
        short=lambda client_id: client_id.rpartition("|")[2],
        naming="{noun} {name}",
    )
)
"""`describe_user_pool_client`'s client: `{"UserPoolId", "ClientId", "ClientName", "ClientSecret" (when it has
one), "ExplicitAuthFlows": ["ALLOW_USER_SRP_AUTH", ...], "AllowedOAuthFlows", "AllowedOAuthScopes",
"CallbackURLs"}`."""


def mfa(value: str = "ON") -> Requirement:
    """Multi-factor authentication: `ON` (required), `OPTIONAL` or `OFF`."""
    return require("MFA", value.upper(), lambda p: p.get("MfaConfiguration", "OFF"))


def signs_in_with(attribute: str = "email") -> Requirement:
    """Users sign in with `attribute` (`email` or `phone_number`): as their user name, or as an alias of it."""
    return require(
        "sign-in attributes",
        attribute,
        lambda p: sorted({*(p.get("UsernameAttributes") or []), *(p.get("AliasAttributes") or [])}),
        compare=lambda found, wanted: wanted in found,
    )


def auto_verifies(attribute: str = "email") -> Requirement:
    """Cognito verifies `attribute` (`email`, `phone_number`) itself when a user signs up."""
    return require(
        "auto-verified attributes",
        attribute,
        lambda p: sorted(p.get("AutoVerifiedAttributes") or []),
        compare=lambda found, wanted: wanted in found,
    )


def password_length(minimum: int | Bound) -> Requirement:
    """Passwords have at least this many characters (a number, or a `kit.bounds` bound: `at_least(12)`)."""
    return require(
        "minimum password length",
        minimum,
        lambda p: ((p.get("Policies") or {}).get("PasswordPolicy") or {}).get("MinimumLength"),
    )


@later
def client_of(pool: Resource | str | None) -> Requirement:
    """The client belongs to the user pool (a described pool, its id or ARN)."""
    return refs.refers("user pool", refs.USER_POOL, pool, lambda c: c.get("UserPoolId"))


def has_secret(expected: bool = True) -> Requirement:
    """The client has a secret (a server-side app) or, with `expected=False`, none (a browser or mobile app)."""
    return require("client secret", expected, lambda c: bool(c.get("ClientSecret")))


def auth_flows(*flows: str) -> Requirement:
    """The client allows each of these authentication flows (`ALLOW_USER_SRP_AUTH`, `ALLOW_REFRESH_TOKEN_AUTH`...;
    the legacy names without `ALLOW_` are read as the same flows), among others."""
    wanted = sorted(_flow(f) for f in flows)
    return require(
        "auth flows",
        wanted,
        lambda c: sorted(_flow(f) for f in c.get("ExplicitAuthFlows") or []),
        compare=lambda found, _: set(wanted) <= set(found),
    )


def _flow(name: str) -> str:
    """`USER_PASSWORD_AUTH` (the legacy spelling) and `ALLOW_USER_PASSWORD_AUTH` alike; `ADMIN_NO_SRP_AUTH` is
    `ALLOW_ADMIN_USER_PASSWORD_AUTH`."""
    name = name.upper()
    if name == "ADMIN_NO_SRP_AUTH":
        return "ALLOW_ADMIN_USER_PASSWORD_AUTH"
    return name if name.startswith("ALLOW_") else f"ALLOW_{name}"


def oauth_flows(*flows: str) -> Requirement:
    """The client allows exactly these OAuth flows (`code`, `implicit`, `client_credentials`)."""
    return require("OAuth flows", sorted(flows), lambda c: sorted(c.get("AllowedOAuthFlows") or []))
