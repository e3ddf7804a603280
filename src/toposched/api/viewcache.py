"""The cluster view last answered to each viewer, kept while the store's version is unchanged
(``VersionedCache``). The page polls the view every few seconds; on a quiet cluster a poll then
costs a version check instead of rebuilding, encoding and hashing the whole view
(``bench/cluster_view.py`` measures both). The ETag is still the hash of the view itself."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from toposched.api.auth import User
from toposched.api.versioned import VersionedCache

ViewKey = tuple[str | None, User | None]  # the topology asked for, and who asks


@dataclass(frozen=True, slots=True)
class CachedView:
    """One encoded view and its ETag."""

    body: bytes
    etag: str

    @classmethod
    def of(cls, body: bytes) -> CachedView:
        return cls(body, '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"')


class ViewCache(VersionedCache[ViewKey, CachedView]):
    """At most ``size`` views (one per topology and viewer)."""
