"""The service serves its own Foundry module: a manifest whose URLs point back at the service, and
a zip with module.json at its root holding exactly the files of foundry-module/'s package."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

from service.api.foundry import PACKAGE_ENTRIES, module_root

ROOT = Path(__file__).resolve().parent.parent
MODULE_DIR = ROOT / "foundry-module"


def _module_files(root: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for entry in PACKAGE_ENTRIES:
        path = root / entry
        for file in [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()):
            if "__pycache__" not in file.parts:
                files[file.relative_to(root).as_posix()] = file.read_bytes()
    return files


async def _zip(client: Any) -> zipfile.ZipFile:
    response = await client.get("/foundry/module.zip")
    assert response.status == 200
    assert response.headers["Content-Type"] == "application/zip"
    return zipfile.ZipFile(io.BytesIO(await response.read()))


async def test_the_manifest_points_foundry_at_this_service(make_client: Any) -> None:
    client = await make_client(admin=False)
    response = await client.get("/foundry/module.json")
    assert response.status == 200
    served = await response.json()
    assert served["manifest"] == str(client.make_url("/foundry/module.json"))
    assert served["download"] == str(client.make_url("/foundry/module.zip"))
    # Everything else is the module's own manifest.
    own = json.loads((MODULE_DIR / "module.json").read_text("utf-8"))
    assert {k: v for k, v in served.items() if k not in ("manifest", "download")} == own
    # The zip the manifest names is there.
    download = await client.get(served["download"].removeprefix(str(client.make_url(""))))
    assert download.status == 200


async def test_the_manifest_urls_follow_the_host_the_browser_asked(make_client: Any) -> None:
    # A Host the operator allowed (any other is refused: test_bounds_manifest.py).
    client = await make_client(admin=False, allowed_hosts=("firefight.example.org",))
    response = await client.get(
        "/foundry/module.json?x=1", headers={"Host": "firefight.example.org:8443"}
    )
    served = await response.json()
    assert served["manifest"] == "http://firefight.example.org:8443/foundry/module.json"
    assert served["download"] == "http://firefight.example.org:8443/foundry/module.zip"
    # The zip fetched by that name carries the same URLs in its own module.json.
    response = await client.get(
        "/foundry/module.zip", headers={"Host": "firefight.example.org:8443"}
    )
    inside = json.loads(zipfile.ZipFile(io.BytesIO(await response.read())).read("module.json"))
    assert inside["manifest"] == "http://firefight.example.org:8443/foundry/module.json"
    assert inside["download"] == "http://firefight.example.org:8443/foundry/module.zip"


async def test_the_zip_holds_the_module_with_module_json_at_its_root(make_client: Any) -> None:
    client = await make_client(admin=False)
    zipped = await _zip(client)
    assert zipped.testzip() is None
    names = zipped.namelist()
    assert names[0] == "module.json"
    inside = json.loads(zipped.read("module.json"))
    own = json.loads((MODULE_DIR / "module.json").read_text("utf-8"))
    assert (inside["id"], inside["version"]) == (own["id"], own["version"])
    # The installed copy's manifest names this service, as /foundry/module.json does: Foundry's
    # update check reads the installed module.json's `manifest`.
    assert inside["manifest"] == str(client.make_url("/foundry/module.json"))
    assert inside["download"] == str(client.make_url("/foundry/module.zip"))
    assert {k: v for k, v in inside.items() if k not in ("manifest", "download")} == own
    named = [
        *own["esmodules"],
        *own["styles"],
        *(language["path"] for language in own["languages"]),
        *(f"templates/{p.name}" for p in (MODULE_DIR / "templates").iterdir()),
    ]
    assert named and set(named) <= set(names)
    # Exactly the module's package, byte for byte but for module.json's URLs (as
    # scripts/build-zip.mjs packs it with --base-url).
    files = _module_files(MODULE_DIR)
    assert {name: zipped.read(name) for name in names if name != "module.json"} == {
        name: data for name, data in files.items() if name != "module.json"
    }
    assert set(names) == set(files)
    # Built once: the same bytes again.
    again = await _zip(client)
    assert [i.CRC for i in again.infolist()] == [i.CRC for i in zipped.infolist()]


def test_the_service_reads_the_module_from_the_checkout_or_where_it_is_told() -> None:
    assert module_root({}) == MODULE_DIR
    assert module_root({"FIREFIGHT_FOUNDRY_MODULE_DIR": "/opt/m"}) == Path("/opt/m")


async def test_without_the_module_the_routes_say_where_they_looked(
    make_client: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("FIREFIGHT_FOUNDRY_MODULE_DIR", str(tmp_path))
    client = await make_client(admin=False)
    for path in ("/foundry/module.json", "/foundry/module.zip"):
        response = await client.get(path)
        assert response.status == 404
        problem = await response.json()
        assert "FIREFIGHT_FOUNDRY_MODULE_DIR" in problem["detail"]


def test_the_image_carries_the_module_and_tells_the_service_where() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text("utf-8")
    ignored = (ROOT / ".dockerignore").read_text("utf-8").splitlines()
    assert "FIREFIGHT_FOUNDRY_MODULE_DIR=/opt/firefight/foundry-module" in dockerfile
    for entry in PACKAGE_ENTRIES:
        assert f"!foundry-module/{entry}" in ignored
        assert f"foundry-module/{entry}" in dockerfile
