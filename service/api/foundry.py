"""The Foundry module, served by the service itself: its manifest at `/foundry/module.json`
(with `manifest` and `download` pointing back here) and its package at `/foundry/module.zip`,
whose own module.json carries the same URLs (Foundry's update check of an installed copy reads
the installed module.json's `manifest`).

The module's files are read where they are: `foundry-module/` of the source tree the service
runs from, or the folder `FIREFIGHT_FOUNDRY_MODULE_DIR` names (the Docker image copies the
module's package there, since the installed package has no source tree).
"""

from __future__ import annotations

import io
import ipaddress
import json
import os
import zipfile
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from aiohttp import web

from service.api.problems import ProblemError

FOUNDRY_PATH = "/foundry"
MANIFEST_PATH = f"{FOUNDRY_PATH}/module.json"
PACKAGE_PATH = f"{FOUNDRY_PATH}/module.zip"
# What the package holds, as foundry-module/scripts/build-zip.mjs (PACKAGE_ENTRIES) zips it.
PACKAGE_ENTRIES = ("module.json", "src", "styles", "lang", "templates")
# A fixed date for every entry, so the same files always make the same bytes.
ZIP_DATE = (2024, 1, 1, 0, 0, 0)
# Zips kept built, one per URL the service is named by (a public URL is one; each loopback
# port or allowed host another): a bounded few, the least recently served dropped first.
ZIPS_KEPT = 8


# Where the module is in a source checkout: beside the service package.
SOURCE_MODULE_DIR = Path(__file__).resolve().parent.parent.parent / "foundry-module"


def module_root(environ: Mapping[str, str] = os.environ) -> Path:
    configured = environ.get("FIREFIGHT_FOUNDRY_MODULE_DIR")
    return Path(configured) if configured else SOURCE_MODULE_DIR


def _files_under(node: Path, prefix: str) -> list[tuple[str, bytes]]:
    if node.is_file():
        return [(prefix, node.read_bytes())]
    found: list[tuple[str, bytes]] = []
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        if child.name == "__pycache__":
            continue
        found.extend(_files_under(child, f"{prefix}/{child.name}"))
    return found


def package_files(root: Path) -> list[tuple[str, bytes]]:
    """Every file of the package, module.json first, names with forward slashes."""
    return [item for entry in PACKAGE_ENTRIES for item in _files_under(root / entry, entry)]


def build_zip(files: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zipped:
        for name, data in files:
            zipped.writestr(zipfile.ZipInfo(name, date_time=ZIP_DATE), data, zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def with_urls(manifest: Mapping[str, object], base: str | None) -> dict[str, object]:
    """The manifest naming where it and its zip are (`base` + /module.json, /module.zip), or
    as it is without a base."""
    if base is None:
        return dict(manifest)
    return {**manifest, "manifest": f"{base}/module.json", "download": f"{base}/module.zip"}


class FoundryPackage:
    """The module's manifest and zips, read once per process and built on first use: one zip
    per base URL its module.json names (ZIPS_KEPT of them at most), and one naming none."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else module_root()
        self.zips: OrderedDict[str | None, bytes] = OrderedDict()

    @cached_property
    def manifest(self) -> dict[str, object]:
        loaded: dict[str, object] = json.loads((self.root / "module.json").read_text("utf-8"))
        return loaded

    @cached_property
    def files(self) -> list[tuple[str, bytes]]:
        return package_files(self.root)

    def zip_bytes(self, base: str | None = None) -> bytes:
        """The package whose module.json names `base` (None: the module's own module.json)."""
        if base in self.zips:
            self.zips.move_to_end(base)
            return self.zips[base]
        own = (
            json.dumps(with_urls(self.manifest, base), indent=2, ensure_ascii=False).encode()
            + b"\n"
        )
        files = [
            (name, own if name == "module.json" and base else data) for name, data in self.files
        ]
        built = self.zips[base] = build_zip(files)
        while len(self.zips) > ZIPS_KEPT:
            self.zips.popitem(last=False)
        return built


FOUNDRY_PACKAGE = web.AppKey("foundry_package", FoundryPackage)


@dataclass(frozen=True)
class PublicAddress:
    """How the manifest names this service: its configured public URL, else the request's Host
    when the operator allowed it (or it is a loopback host: a service on a GM's own machine)."""

    url: str | None = None
    allowed_hosts: frozenset[str] = frozenset()


PUBLIC_ADDRESS = web.AppKey("public_address", PublicAddress)


def _is_loopback(hostname: str) -> bool:
    if hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(hostname).is_loopback
    except ValueError:
        return False


def _url_here(request: web.Request, path: str) -> str:
    """`path` on this service as clients reach it. Never a Host the operator did not allow: a
    forged one would point Foundry's install and every update at another server."""
    address = request.app[PUBLIC_ADDRESS]
    if address.url is not None:
        return address.url + path
    try:
        # The scheme and host as aiohttp sees them (the Host header, and the scheme of the
        # connection unless a trusted proxy setup rewrote the request).
        here = request.url
        hostname = (here.host or "").lower()
        given = request.host.lower()
    except ValueError:
        hostname = given = ""
    if hostname and (
        _is_loopback(hostname)
        or hostname in address.allowed_hosts
        or given in address.allowed_hosts
    ):
        return str(here.with_path(path).with_query(None).with_fragment(None))
    raise ProblemError(
        400,
        "host-not-allowed",
        "Host not allowed",
        "this service names itself only by its public URL or a host its operator allowed: set "
        "FIREFIGHT_PUBLIC_URL (or list this host in FIREFIGHT_ALLOWED_HOSTS)",
        "Host",
    )


def _installed(request: web.Request) -> FoundryPackage:
    package = request.app[FOUNDRY_PACKAGE]
    if not (package.root / "module.json").is_file():
        raise web.HTTPNotFound(
            text=f"the Foundry module is not where this service looks ({package.root}); set "
            "FIREFIGHT_FOUNDRY_MODULE_DIR to the folder that holds its module.json"
        )
    return package


async def manifest(request: web.Request) -> web.Response:
    """The manifest for Foundry's Install Module dialog: install and update from this service."""
    _installed(request)
    body = with_urls(request.app[FOUNDRY_PACKAGE].manifest, _url_here(request, FOUNDRY_PATH))
    return web.json_response(body, headers={"Cache-Control": "no-cache"})


async def package(request: web.Request) -> web.Response:
    """The zip, its module.json naming this service as the manifest does; for a Host the
    service may not name itself by, naming nothing (any Host may fetch the package)."""
    installed = _installed(request)
    try:
        base: str | None = _url_here(request, FOUNDRY_PATH)
    except ProblemError:
        base = None
    return web.Response(
        body=installed.zip_bytes(base),
        content_type="application/zip",
        headers={
            "Content-Disposition": 'attachment; filename="module.zip"',
            "Cache-Control": "no-cache",
        },
    )


def add_routes(app: web.Application, address: PublicAddress | None = None) -> None:
    app[FOUNDRY_PACKAGE] = FoundryPackage()
    app[PUBLIC_ADDRESS] = address if address is not None else PublicAddress()
    app.router.add_get(MANIFEST_PATH, manifest)
    app.router.add_get(PACKAGE_PATH, package)
