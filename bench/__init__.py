"""Throughput benchmark of firefight's attack endpoint over HTTP: `python -m bench` (`make bench`).

Three servers, each in its own process on a loopback port, are loaded in turn by the same
aiohttp client: firefight with the embedded store, firefight with the Redis store, and a bare
aiohttp baseline that does one Redis round trip per request. See docs/performance.md.
"""
