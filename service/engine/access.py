"""Who may do what: the server's admin key, and each encounter's GM and player tokens.

Tokens are random and kept only as SHA-256 hashes; comparisons take constant time.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Literal

from schemas.encounter import Tokens

Permission = Literal["read", "play", "gm"]

# The issue "Trust": players resolve attacks, zone tests and actions and read state and events;
# only the GM deletes the encounter, edits state or advances turns.
ROLE_PERMISSIONS: Mapping[str, frozenset[Permission]] = {
    "gm": frozenset({"read", "play", "gm"}),
    "player": frozenset({"read", "play"}),
}
# A player's own token is the role "player:<player id>": a player's permissions, for the actors
# that player controls. The shared "player" token acts for any actor it sees.
PLAYER_PREFIX = "player:"
# The hash of the GM token of the campaign an encounter was started in: it opens the encounter
# as its GM (service/engine/campaigns.py), beside the encounter's own.
CAMPAIGN_GM = "gm@campaign"


class Unauthorized(Exception):
    """No credential, or one that is not this encounter's (401)."""


class Forbidden(Exception):
    """A credential of this encounter whose role may not do this (403); `path` names what."""

    def __init__(self, detail: str, path: str | None = None) -> None:
        super().__init__(detail)
        self.path = path


def player_of(role: str) -> str | None:
    """The player a role is the token of, or None (the GM's, or the shared player token)."""
    return role[len(PLAYER_PREFIX) :] if role.startswith(PLAYER_PREFIX) else None


# A wrong token and an encounter that does not exist get the same answer: a stranger learns
# nothing of which encounters there are.
REFUSED = "that token opens no encounter with this id (a wrong token, or an encounter that expired)"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_admin(credential: str | None, admin_key_hash: str) -> None:
    if credential is None:
        raise Unauthorized("creating an encounter needs the server's admin key as a Bearer token")
    if not hmac.compare_digest(token_hash(credential), admin_key_hash):
        raise Unauthorized("that is not the server's admin key")


def is_admin(credential: str | None, admin_key_hash: str) -> bool:
    return credential is not None and hmac.compare_digest(token_hash(credential), admin_key_hash)


def role_of(credential: str | None, token_hashes: Mapping[str, str], admin_key_hash: str) -> str:
    """The role `credential` has on an encounter; the admin key acts as its GM."""
    if credential is None:
        raise Unauthorized("this encounter needs its GM or player token as a Bearer token")
    presented = token_hash(credential)
    if hmac.compare_digest(presented, admin_key_hash):
        return "gm"
    for role, expected in token_hashes.items():
        if hmac.compare_digest(presented, expected):
            return "gm" if role == CAMPAIGN_GM else role
    raise Unauthorized(REFUSED)


def authorize(
    credential: str | None,
    needed: Permission,
    token_hashes: Mapping[str, str],
    admin_key_hash: str,
) -> str:
    role = role_of(credential, token_hashes, admin_key_hash)
    player = player_of(role)
    if needed not in ROLE_PERMISSIONS["player" if player is not None else role]:
        who = f"player '{player}'s" if player is not None else role
        raise Forbidden(f"the {who} token may not do this; it needs the GM token")
    return role


def digest(*parts: str | bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "big") + data)
    return hasher.hexdigest()


def _xor_pad(data: bytes, idempotency_key: str, role: str) -> bytes:
    # A one-time pad drawn from the client's key: the store never holds a token it could read.
    pad = hashlib.shake_256(f"firefight-token:{role}:{idempotency_key}".encode())
    return bytes(a ^ b for a, b in zip(data, pad.digest(len(data)), strict=True))


def seal(secret: str, idempotency_key: str, role: str) -> str:
    """A token as kept for the retries of the request that made it, unreadable without the
    client's key (`role` names which token: each has a pad of its own)."""
    return _xor_pad(secret.encode(), idempotency_key, role).hex()


def unseal(sealed: str, idempotency_key: str, role: str) -> str:
    return _xor_pad(bytes.fromhex(sealed), idempotency_key, role).decode()


def seal_tokens(tokens: Tokens, idempotency_key: str) -> Tokens:
    """Tokens as kept for the retries of a creation, unreadable without the client's key."""
    return Tokens(
        gm=seal(tokens.gm, idempotency_key, "gm"),
        player=seal(tokens.player, idempotency_key, "player"),
    )


def unseal_tokens(sealed: Tokens, idempotency_key: str) -> Tokens:
    return Tokens(
        gm=unseal(sealed.gm, idempotency_key, "gm"),
        player=unseal(sealed.player, idempotency_key, "player"),
    )
