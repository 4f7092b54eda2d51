"""The served Foundry manifest names this service by its configured public URL, or by a Host the
operator allowed: it copied any request's Host header into `manifest` and `download`, so a
request with a forged Host (a poisoned cache, a link sent to a GM) pointed Foundry's install and
every update at another server. And it names every game system and ruleset the module supports."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

from service.api.foundry import FOUNDRY_PACKAGE, ZIPS_KEPT
from service.config import ConfigError, load_config
from service.rules import RULESETS

MODULE_DIR = Path(__file__).resolve().parent.parent / "foundry-module"
ENVIRONMENT = {"FIREFIGHT_ADMIN_KEY": "test-admin-key-0123456789"}


async def _manifest(client: Any, host: str) -> Any:
    return await client.get("/foundry/module.json", headers={"Host": host})


async def test_a_configured_public_url_names_the_service_whatever_the_host(
    make_client: Any,
) -> None:
    client = await make_client(admin=False, public_url="https://vtt.example.org/firefight")
    for host in ("evil.example.net", "localhost:8080"):
        response = await _manifest(client, host)
        assert response.status == 200, await response.text()
        served = await response.json()
        assert served["manifest"] == "https://vtt.example.org/firefight/foundry/module.json"
        assert served["download"] == "https://vtt.example.org/firefight/foundry/module.zip"


async def test_a_host_not_allowed_is_refused_without_a_public_url(make_client: Any) -> None:
    client = await make_client(admin=False)
    response = await _manifest(client, "evil.example.net")
    assert response.status == 400
    problem = await response.json()
    assert problem["type"].endswith("/host-not-allowed")
    assert problem["path"] == "Host"
    assert "FIREFIGHT_PUBLIC_URL" in problem["detail"]
    assert "evil.example.net" not in json.dumps(problem)


@pytest.mark.parametrize(
    ("host", "base"),
    [
        ("firefight.example.org:8443", "http://firefight.example.org:8443"),
        ("FIREFIGHT.example.org", "http://firefight.example.org"),
        ("localhost:8080", "http://localhost:8080"),
        ("127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("[::1]:8080", "http://[::1]:8080"),
    ],
)
async def test_an_allowed_or_loopback_host_names_the_service(
    make_client: Any, host: str, base: str
) -> None:
    client = await make_client(admin=False, allowed_hosts=("firefight.example.org",))
    response = await _manifest(client, host)
    assert response.status == 200, await response.text()
    served = await response.json()
    assert served["manifest"] == f"{base}/foundry/module.json"
    assert served["download"] == f"{base}/foundry/module.zip"


async def test_the_zip_is_served_whatever_the_host(make_client: Any) -> None:
    """Any Host may fetch the package; one the operator did not allow gets it naming no URL (a
    forged Host must not become the installed copy's update URL)."""
    client = await make_client(admin=False)
    response = await client.get("/foundry/module.zip", headers={"Host": "evil.example.net"})
    assert response.status == 200
    inside = json.loads(zipfile.ZipFile(io.BytesIO(await response.read())).read("module.json"))
    assert "manifest" not in inside and "download" not in inside
    assert inside == json.loads((MODULE_DIR / "module.json").read_text("utf-8"))


async def test_the_zips_built_for_several_hosts_are_bounded(make_client: Any) -> None:
    """Each loopback port names another URL: the zips kept are a bounded few."""
    client = await make_client(admin=False)
    for port in range(1, 40):
        response = await client.get("/foundry/module.zip", headers={"Host": f"localhost:{port}"})
        inside = json.loads(zipfile.ZipFile(io.BytesIO(await response.read())).read("module.json"))
        assert inside["download"] == f"http://localhost:{port}/foundry/module.zip"
    package = client.server.app[FOUNDRY_PACKAGE]
    assert 0 < len(package.zips) <= ZIPS_KEPT


def test_the_settings_are_read_and_checked() -> None:
    config = load_config(
        [],
        {
            **ENVIRONMENT,
            "FIREFIGHT_PUBLIC_URL": "https://vtt.example.org/firefight/",
            "FIREFIGHT_ALLOWED_HOSTS": "A.example.org, b.example.org:8443",
        },
    )
    assert config.public_url == "https://vtt.example.org/firefight"
    assert config.allowed_hosts == ("a.example.org", "b.example.org:8443")
    for bad in (
        "vtt.example.org",
        "ftp://vtt.example.org",
        "https://vtt.example.org/?q=1",
        "https://",
    ):
        with pytest.raises(ConfigError, match="FIREFIGHT_PUBLIC_URL"):
            load_config([], {**ENVIRONMENT, "FIREFIGHT_PUBLIC_URL": bad})
    with pytest.raises(ConfigError, match="FIREFIGHT_ALLOWED_HOSTS"):
        load_config([], {**ENVIRONMENT, "FIREFIGHT_ALLOWED_HOSTS": "a.example.org/path"})


def _system_ids() -> set[str]:
    """The game systems the module's code maps sheets of (`*SYSTEM_ID = "..."` in src/)."""
    found = set()
    for source in (MODULE_DIR / "src").glob("*.mjs"):
        found |= set(re.findall(r'SYSTEM_ID = "([^"]+)"', source.read_text("utf-8")))
    return found


async def test_the_manifest_names_every_system_and_ruleset_the_module_supports(
    make_client: Any,
) -> None:
    """shadowrun5e, shadowrun4e and sr3e sheets fill the dialog (any other system gets the
    manual form, so none is required and `relationships.systems`, which would restrict the
    module to them, stays unset); every ruleset of the service has its form."""
    client = await make_client(admin=False)
    served = await (await _manifest(client, "localhost")).json()
    relationships = served["relationships"]
    assert "systems" not in relationships and "requires" not in relationships
    recommended = {r["id"] for r in relationships["recommends"] if r["type"] == "system"}
    assert _system_ids() == {"shadowrun5e", "shadowrun4e", "sr3e"}
    assert recommended == _system_ids()
    assert set(served["flags"]["firefight"]["rulesets"]) == set(RULESETS)
