"""The service's operations as the contract lists them: each route's method, path, request and
answer types, who may call it and every problem it may answer (service/api/openapi.py makes
the OpenAPI document and `/docs` from them; tests/test_fuzz.py fuzzes them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from schemas.campaign import (
    CampaignActor,
    CampaignActorPatch,
    CampaignCreate,
    CampaignCreated,
    CampaignEncounterCreate,
    CampaignEncounterCreated,
    CampaignOutcome,
    CampaignPlayer,
    CampaignView,
    CarryBack,
)
from schemas.encounter import (
    ActionOutcome,
    ActionRequest,
    AdvanceOutcome,
    AdvanceRequest,
    AttackAsk,
    AttackOutcome,
    EncounterCreate,
    EncounterCreated,
    EncounterView,
    Event,
    EventPage,
    Health,
    ImportOutcome,
    InitiativeOutcome,
    MonitorOutcome,
    PlayerOutcome,
    RulesetDetail,
    RulesetList,
    SceneOutcome,
    StateEdit,
    StateEditOutcome,
    UndoOutcome,
    UndoRequest,
    ZoneList,
    ZoneTestAsk,
    ZoneTestOutcome,
)
from schemas.initiative import InitiativeJoin, InitiativeStart, InitiativeView
from schemas.monitor import MonitorEdit
from schemas.odds import AttackOdds, ZoneTestOdds
from schemas.scene import ActorList, ActorMove, ActorPatch, PlayerBinding, SceneActor
from service.imports import MAX_IMPORT_BYTES

# Who may call an operation: the server's admin key; a token of the encounter (the admin key acts
# as its GM); the same, or for a WebSocket `?token=` (browsers cannot set headers).
Auth = Literal["admin", "encounter", "socket", "campaign"]


# The areas operations are grouped by (an operation's `tag`), in the order `/docs` shows them.
TAGS: dict[str, str] = {
    "operations": "The service itself: alive, ready (no token).",
    "rulesets": "What each ruleset supports (no token).",
    "encounters": "An encounter: start, read, correct, undo, end.",
    "play": "The fight: attacks, actions, the turn, suppression zones and their tests.",
    "odds": "The odds of an attack or a zone test before its dice (nothing written).",
    "initiative": "The initiative the service runs: passes, phases, who joins and leaves.",
    "scene": "The scene's actors and the players' tokens.",
    "monitors": "Condition monitors: the GM's edits, damage waiting for confirmation.",
    "imports": "Character files (Chummer, Foundry) onto a scene's or a campaign's actor.",
    "events": "The encounter's events: a page at a time, or live over the WebSocket.",
    "campaigns": "Characters and NPC templates kept between encounters.",
}

# What each problem status means; every status an operation can answer is listed with it.
PROBLEMS: dict[int, str] = {
    400: "Invalid request: malformed JSON, a field or parameter that does not fit, given dice "
    "that do not fit, or (WebSocket) a request that is not a WebSocket upgrade",
    401: "No credential, or one that is not valid here (see WWW-Authenticate)",
    403: "The credential's role may not do this (only the GM may), or a player's token acts "
    "for an actor its player does not control (the shared one: a GM's actor)",
    404: "No such encounter (it may have expired) or campaign, or no such actor in the scene "
    "or the campaign",
    409: "A request with this Idempotency-Key is still running (retry in a moment), the "
    "stored state does not fit this version's bounds (`path` says where; the GM reads it with "
    "GET and replaces it with PUT .../state), a PUT .../state whose `version` the encounter "
    "has moved past (`state-changed`: nothing written; read it again), or what the rules do "
    "not allow in this state of the fight",
    410: "The encounter has ended; its events stay readable a while",
    408: "The body did not all arrive within the body timeout; the connection is closed",
    413: "The body is larger than the service accepts",
    422: "Not allowed by the rules, past one of the service's limits, or an Idempotency-Key "
    "used before for another request (or whose kept answer has expired)",
    429: "The encounter changes state faster than the service allows, this address sent too "
    "many requests without a valid token, or (odds previews) the token or the encounter has "
    "as many previews in flight as it may (`too-many-previews`); retry after Retry-After",
    503: (
        "The store cannot be reached, the encounter kept changing, or the replica is working on "
        "as many requests as it may; retry after Retry-After"
    ),
}


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    summary: str
    # Stable and camelCase: what generated clients name their functions after
    # (openapi-python-client: `create_encounter`, in the module of its tag).
    operation_id: str = field(kw_only=True)
    # The area it belongs to (TAGS): a module of the Python client, a group in `/docs`.
    tag: str = field(kw_only=True)
    request: Any = None
    response: Any = None
    status: int = 200
    query_after: bool = False
    # Takes `?samples=`: the sample size of a sampled odds preview.
    query_samples: bool = False
    # Every problem status the operation can answer (application/problem+json).
    errors: tuple[int, ...] = ()
    auth: Auth | None = None
    # Takes an Idempotency-Key header: a retry with it gets the first answer back.
    idempotent: bool = False
    # Statuses answered with `response`'s type rather than a problem (/readyz's 503).
    also: tuple[int, ...] = ()
    # The body may be left out (the request's defaults).
    body_optional: bool = False
    # The body is a file's bytes as they are (any Content-Type), not JSON; and `?format=` says
    # which reader it is for (the import).
    file_body: bool = False
    # Takes `?carry=` and `?actors=` (an encounter's end: what goes back to its campaign).
    query_carry: bool = False
    # Another success: its status and the type it answers with (an encounter of a campaign's
    # end answers what it gave back).
    other_success: tuple[int, Any] | None = None
    # A WebSocket: described apart from the REST paths (`x-websockets`), as generators would
    # make a plain GET of it that can only be answered 400.
    websocket: bool = False


OPERATIONS = (
    Operation(
        "get",
        "/healthz",
        "The process is alive.",
        operation_id="getHealth",
        tag="operations",
        response=Health,
    ),
    Operation(
        "get",
        "/readyz",
        "The store answers (503 when it does not).",
        operation_id="getReadiness",
        tag="operations",
        response=Health,
        also=(503,),
    ),
    Operation(
        "get",
        "/v1/rulesets",
        "Ruleset ids with what each supports.",
        operation_id="listRulesets",
        tag="rulesets",
        response=RulesetList,
    ),
    Operation(
        "get",
        "/v1/rulesets/{ruleset}",
        "One ruleset, with the data clients draw with (sr3-hardlife's body map).",
        operation_id="getRuleset",
        tag="rulesets",
        response=RulesetDetail,
        errors=(404,),
    ),
    Operation(
        "post",
        "/v1/encounters",
        "Start an encounter; returns its id and tokens.",
        operation_id="createEncounter",
        tag="encounters",
        request=EncounterCreate,
        response=EncounterCreated,
        status=201,
        errors=(400, 401, 408, 413, 422, 429, 503),
        auth="admin",
        idempotent=True,
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}",
        "The encounter's state and last event id, and when it expires unless changed "
        "(`expires_at`, `ttl_seconds`: null when nothing expires).",
        operation_id="getEncounter",
        tag="encounters",
        response=EncounterView,
        errors=(401, 404, 410, 429, 503),
        auth="encounter",
    ),
    Operation(
        "delete",
        "/v1/encounters/{encounter}",
        "End the encounter (GM): 204. One started in a campaign first gives the characters it "
        "brought back what the fight changed (`carry`: all of monitor, ammo, edge unless told; "
        "`actors`: all it brought unless told) and answers 200 with what it gave.",
        operation_id="endEncounter",
        tag="encounters",
        status=204,
        errors=(400, 401, 403, 404, 409, 410, 422, 429, 503),
        auth="encounter",
        query_carry=True,
        other_success=(200, CarryBack),
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/attacks",
        "Resolve an attack; the body is the encounter's ruleset's attack.",
        operation_id="resolveAttack",
        tag="play",
        request=AttackAsk,
        response=AttackOutcome,
        status=201,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/attacks/odds",
        "The odds of an attack before its dice: the same body, answered as a distribution per "
        "target on the encounter as it stands; nothing is rolled, stored or published.",
        operation_id="previewAttackOdds",
        tag="odds",
        request=AttackAsk,
        response=AttackOdds,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        query_samples=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/actions",
        "A non-attack action that changes combat state.",
        operation_id="takeAction",
        tag="play",
        request=ActionRequest,
        response=ActionOutcome,
        status=201,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/advance",
        "Move to an actor's action phase, the next initiative pass or the next combat turn (GM).",
        operation_id="advanceTurn",
        tag="play",
        request=AdvanceRequest,
        response=AdvanceOutcome,
        status=201,
        errors=(400, 401, 403, 404, 409, 410, 408, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/initiative",
        "Start a combat turn with these actors' initiative, rolled or given (GM); the service "
        "runs its passes and phases from now on. No actors: everyone of the last turn again.",
        operation_id="startInitiative",
        tag="initiative",
        request=InitiativeStart,
        response=InitiativeOutcome,
        status=201,
        errors=(400, 401, 403, 404, 409, 410, 408, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/initiative",
        "The initiative the service runs: the order, the scores, whose phase it is and what "
        "that actor has left of it (404 while the VTT runs its own).",
        operation_id="getInitiative",
        tag="initiative",
        response=InitiativeView,
        errors=(401, 404, 409, 410, 422, 429, 503),
        auth="encounter",
    ),
    Operation(
        "delete",
        "/v1/encounters/{encounter}/initiative",
        "Stop running the initiative (GM): the VTT's own tracker goes on with advance.",
        operation_id="stopInitiative",
        tag="initiative",
        response=InitiativeOutcome,
        errors=(400, 401, 403, 404, 409, 410, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/initiative/actors",
        "Actors join the combat turn under way, each in its place by its score (GM).",
        operation_id="joinInitiative",
        tag="initiative",
        request=InitiativeJoin,
        response=InitiativeOutcome,
        status=201,
        errors=(400, 401, 403, 404, 409, 410, 408, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "delete",
        "/v1/encounters/{encounter}/initiative/actors/{actor}",
        "An actor leaves the combat turn; if it was acting, the next phase begins (GM).",
        operation_id="leaveInitiative",
        tag="initiative",
        response=InitiativeOutcome,
        errors=(400, 401, 403, 404, 409, 410, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/undo",
        "Take back the newest change (GM): the state goes back to what it was before it, its "
        "dice are not rolled again, and the undo is an event. A chain of undos walks back up "
        "to FIREFIGHT_UNDO_DEPTH changes. 409 `nothing-to-undo` when none is left, "
        "`cannot-undo` when the newest gave or revoked a player's token, `state-changed` when "
        "the body's `event` is not the newest change (nothing undone).",
        operation_id="undoChange",
        tag="encounters",
        request=UndoRequest,
        response=UndoOutcome,
        body_optional=True,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "put",
        "/v1/encounters/{encounter}/state",
        "Set the turn, the combat state or both by hand (GM): a correction at the table. With "
        "`version` (GET's), it is written only on that version: on any other, 409 "
        "`state-changed` and nothing is written.",
        operation_id="editState",
        tag="encounters",
        request=StateEdit,
        response=StateEditOutcome,
        status=201,
        errors=(400, 401, 403, 404, 409, 410, 408, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/zones",
        "The live suppression zones.",
        operation_id="listZones",
        tag="play",
        response=ZoneList,
        errors=(401, 404, 409, 410, 429, 503),
        auth="encounter",
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/zones/{zone}/tests",
        "The test of one actor in, entering or moving in a zone; the body is the encounter's "
        "ruleset's zone test.",
        operation_id="resolveZoneTest",
        tag="play",
        request=ZoneTestAsk,
        response=ZoneTestOutcome,
        status=201,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/zones/{zone}/tests/odds",
        "The odds of a zone test before its dice, as the attack's odds.",
        operation_id="previewZoneTestOdds",
        tag="odds",
        request=ZoneTestAsk,
        response=ZoneTestOdds,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        query_samples=True,
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/actors",
        "The scene's actors (a player's token sees none hidden).",
        operation_id="listActors",
        tag="scene",
        response=ActorList,
        errors=(401, 404, 409, 410, 429, 503),
        auth="encounter",
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/actors/{actor}",
        "One actor of the scene.",
        operation_id="getActor",
        tag="scene",
        response=SceneActor,
        errors=(400, 401, 404, 409, 410, 429, 503),
        auth="encounter",
    ),
    Operation(
        "put",
        "/v1/encounters/{encounter}/actors/{actor}",
        "Set an actor whole, new or replaced (GM).",
        operation_id="putActor",
        tag="scene",
        request=SceneActor,
        response=SceneOutcome,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "patch",
        "/v1/encounters/{encounter}/actors/{actor}",
        "Change the parts of an actor the body gives (GM).",
        operation_id="patchActor",
        tag="scene",
        request=ActorPatch,
        response=SceneOutcome,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "delete",
        "/v1/encounters/{encounter}/actors/{actor}",
        "Take an actor off the scene (GM).",
        operation_id="removeActor",
        tag="scene",
        response=SceneOutcome,
        errors=(400, 401, 403, 404, 409, 410, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/actors/{actor}/move",
        "Move an actor to a position on the scene plane.",
        operation_id="moveActor",
        tag="scene",
        request=ActorMove,
        response=SceneOutcome,
        status=201,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/actors/{actor}/import",
        "Import a character file onto an actor (GM): the body is the file as it is (a Chummer 5 "
        ".chum5, a Chummer 4 .chum, a Foundry actor's JSON export; any Content-Type), up to "
        f"{MAX_IMPORT_BYTES} bytes, more than other routes take. Its ruleset must be the "
        "encounter's (422 `wrong-ruleset`). A new actor takes the file's sheet and name; one on "
        "the scene keeps all but its sheet, its monitor settled on the new sheet. A scene "
        "change (its event, undo); the answer adds the import's report. 422 `import-refused` "
        "names the element or JSON path it cannot read; 413 `import-too-large`.",
        operation_id="importActor",
        tag="imports",
        response=ImportOutcome,
        status=201,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
        file_body=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/players/{player}",
        "Give a player a token of its own for the actors it controls (GM); the token is in this "
        "answer only, and a new one replaces the old.",
        operation_id="givePlayerToken",
        tag="scene",
        request=PlayerBinding,
        response=PlayerOutcome,
        status=201,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
    ),
    Operation(
        "delete",
        "/v1/encounters/{encounter}/players/{player}",
        "Revoke a player's token (GM).",
        operation_id="revokePlayerToken",
        tag="scene",
        response=PlayerOutcome,
        errors=(400, 401, 403, 404, 409, 410, 429, 503),
        auth="encounter",
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/actors/{actor}/monitor",
        "Heal, set or clear an actor's condition monitor (GM): exactly one of `heal`, `set` and "
        "`clear`. With `version` (GET's), it is written only on that version: on any other, "
        "409 `state-changed`. 409 `no-monitors` where the VTT keeps them (damage 'vtt') or "
        "the ruleset keeps its own (sr3-hardlife).",
        operation_id="editMonitor",
        tag="monitors",
        request=MonitorEdit,
        response=MonitorOutcome,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/actors/{actor}/monitor/pending/{damage}",
        "Apply damage waiting for confirmation (damage 'confirm'), once: the GM, or the player "
        "who controls the actor. 404 `pending-not-found` once it waits no more.",
        operation_id="applyPendingDamage",
        tag="monitors",
        response=MonitorOutcome,
        errors=(400, 401, 403, 404, 409, 410, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "delete",
        "/v1/encounters/{encounter}/actors/{actor}/monitor/pending/{damage}",
        "Decline damage waiting for confirmation (GM): it is dropped, nothing written.",
        operation_id="declinePendingDamage",
        tag="monitors",
        response=MonitorOutcome,
        errors=(400, 401, 403, 404, 409, 410, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/events",
        "Events after an id, oldest first.",
        operation_id="listEvents",
        tag="events",
        response=EventPage,
        query_after=True,
        errors=(400, 401, 404, 429, 503),
        auth="encounter",
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/ws",
        "WebSocket: the events after `after` first, then live ones; each text message is "
        "one Event.",
        operation_id="watchEvents",
        tag="events",
        response=Event,
        status=101,
        websocket=True,
        query_after=True,
        errors=(400, 401, 404, 429, 503),
        auth="socket",
    ),
    # Campaigns.
    Operation(
        "post",
        "/v1/campaigns",
        "Start a campaign (admin key): the group's characters and the GM's NPC templates, kept "
        "between encounters; returns its id and its GM's token.",
        operation_id="createCampaign",
        tag="campaigns",
        request=CampaignCreate,
        response=CampaignCreated,
        status=201,
        errors=(400, 401, 408, 413, 422, 429, 503),
        auth="admin",
        idempotent=True,
    ),
    Operation(
        "get",
        "/v1/campaigns/{campaign}",
        "The campaign: the GM's token sees its characters, templates, players and encounters; "
        "a player's its characters and encounters.",
        operation_id="getCampaign",
        tag="campaigns",
        response=CampaignView,
        errors=(401, 404, 409, 429, 503),
        auth="campaign",
    ),
    Operation(
        "put",
        "/v1/campaigns/{campaign}/actors/{actor}",
        "Set a character or template whole (GM).",
        operation_id="putCampaignActor",
        tag="campaigns",
        request=CampaignActor,
        response=CampaignOutcome,
        status=201,
        errors=(400, 401, 403, 404, 408, 409, 413, 422, 429, 503),
        auth="campaign",
    ),
    Operation(
        "patch",
        "/v1/campaigns/{campaign}/actors/{actor}",
        "Change some parts of a character or template (GM).",
        operation_id="patchCampaignActor",
        tag="campaigns",
        request=CampaignActorPatch,
        response=CampaignOutcome,
        errors=(400, 401, 403, 404, 408, 409, 413, 422, 429, 503),
        auth="campaign",
    ),
    Operation(
        "delete",
        "/v1/campaigns/{campaign}/actors/{actor}",
        "Take a character or template out of the campaign (GM).",
        operation_id="removeCampaignActor",
        tag="campaigns",
        response=CampaignOutcome,
        errors=(400, 401, 403, 404, 409, 422, 429, 503),
        auth="campaign",
    ),
    Operation(
        "post",
        "/v1/campaigns/{campaign}/actors/{actor}/import",
        "Import a character file onto a campaign's actor (GM), as onto a scene's: a new one is "
        "a character with the file's name; one kept keeps all but its sheet.",
        operation_id="importCampaignActor",
        tag="imports",
        response=CampaignOutcome,
        status=201,
        errors=(400, 401, 403, 404, 408, 409, 413, 422, 429, 503),
        auth="campaign",
        file_body=True,
    ),
    Operation(
        "post",
        "/v1/campaigns/{campaign}/players/{player}",
        "Give a player a campaign token (GM), for the characters named: it reads the campaign "
        "and opens its encounters as that player (those open now at once). In this answer only.",
        operation_id="giveCampaignPlayerToken",
        tag="campaigns",
        request=CampaignPlayer,
        response=CampaignOutcome,
        status=201,
        errors=(400, 401, 403, 404, 408, 409, 413, 422, 429, 503),
        auth="campaign",
    ),
    Operation(
        "delete",
        "/v1/campaigns/{campaign}/players/{player}",
        "Revoke a player's campaign token (GM), in the campaign and its open encounters.",
        operation_id="revokeCampaignPlayerToken",
        tag="campaigns",
        response=CampaignOutcome,
        errors=(400, 401, 403, 404, 409, 422, 429, 503),
        auth="campaign",
    ),
    Operation(
        "post",
        "/v1/campaigns/{campaign}/encounters",
        "Start an encounter in the campaign (GM) with its actors brought into the scene: a "
        "character once, a template as `count` copies (`ganger-1`, `ganger-2`...).",
        operation_id="startCampaignEncounter",
        tag="campaigns",
        request=CampaignEncounterCreate,
        response=CampaignEncounterCreated,
        status=201,
        errors=(400, 401, 403, 404, 408, 409, 413, 422, 429, 503),
        auth="campaign",
        idempotent=True,
    ),
)
