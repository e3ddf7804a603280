"""The HTTP service: FastAPI routes with bearer-token roles, and the cluster web page."""

from toposched.api.app import create_app
from toposched.api.auth import AuthConfig, Role, User, generate_tokens, require_private
from toposched.api.limits import Limits

__all__ = ["create_app", "AuthConfig", "Limits", "Role", "User", "generate_tokens", "require_private"]
