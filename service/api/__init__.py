"""The HTTP layer: routes, middlewares, the WebSocket and the served contract."""

from service.api.app import create_app

__all__ = ["create_app"]
