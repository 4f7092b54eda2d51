"""The sr3e system's actor (github.com/mirnau/sr3e), as sr3-actor.mjs reads it: a stat is
{value, mod} (value + mod), a weapon's rounds are in the ammunition item it names, its skill in
the skill item it links, armour is every wearable with a rating. SR3_LINES are the lines of
SR3E_PATHS there."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schemas.sr3 import MAX_WEAPONS
from service.imports.foundry_json import at, item_id, items, key, number
from service.imports.foundry_release import release_line
from service.imports.report import Reading


@dataclass(frozen=True)
class SR3Paths:
    """Where one line of sr3e releases keeps what the sheet reads ("{}" an attribute's or a
    monitor's key). Read at v0.0.3-alpha.6 (module/models/actor/CharacterModel.js,
    components/Attributes.js, SimpleStat.js, DicePools.js, Health.js; module/models/item/
    WeaponModel.js, AmmunitionModel.js, SkillModel.js, WearableModel.js) and v0.0.3-beta.5
    (module/models/actors/CharacterModel.ts, actor-components/*.ts; module/models/items/*.ts).
    The lines keep the same paths; a weapon's `damage` and `recoilComp` are numbers in the
    alphas (alpha.6 WeaponModel.js NumberFields) and {value, mod} in the betas (beta.5
    WeaponModel.ts ModifiableNumberModel): stat() reads either."""

    since: str
    name: str
    attribute: str = "system.attributes.{}"
    combat_pool: str = "system.dicePools.combat"
    health: str = "system.health.{}"
    weapon_type: str = "weapon"
    ammunition_type: str = "ammunition"
    skill_type: str = "skill"
    wearable_type: str = "wearable"
    mode: str = "system.mode"
    damage: str = "system.damage"
    damage_type: str = "system.damageType"
    ammunition_class: str = "system.ammunitionClass"
    recoil_compensation: str = "system.recoilComp"
    # The skill item's id, or "id::n" with the index of the specialization the gun uses
    # (alpha.6 module/services/procedure/FSM/FirearmProcedure.js #resolveItemSkillAndSpec;
    # beta.5 module/services/combat/procedures/resolveLinkedSkill.ts parseLinkedSkillId).
    linked_skill: str = "system.linkedSkillId"
    # What sheets wrote before v0.0.3-alpha.3 (commit 58e48b4 dropped it).
    linked_skill_before: str = "system.linkedSkilliD"
    ammo_id: str = "system.ammoId"
    rounds: str = "system.rounds"
    skill_rating: str = "system.activeSkill.value"
    ballistic: str = "system.ballistic"
    impact: str = "system.impact"


# Oldest first; `since` is the line's first release (alpha.3 to alpha.6 ask for Foundry 13, the
# betas for 14).
SR3_LINES = (SR3Paths("0.0.1", "0.0.3-alpha"), SR3Paths("0.0.3-beta.0", "0.0.3-beta"))
# The separator of a skill link's specialization index.
SPECIALIZATION_SEPARATOR = "::"

# sr3-actor.mjs CATEGORY (config.ts ammunitionClass) and MODES.
CATEGORY = {
    "holdout": "hold_out_pistol",
    "lightpistol": "light_pistol",
    "heavypistol": "heavy_pistol",
    "smg": "smg",
    "shotgun": "shotgun",
    "assaultrifle": "assault_rifle",
    "sportingrifle": "sporting_rifle",
    "sniperrifle": "sniper_rifle",
    "lmg": "light_machine_gun",
    "mmg": "medium_machine_gun",
    "hmg": "heavy_machine_gun",
    "assaultcannon": "assault_cannon",
    "grenadelauncher": "grenade_launcher",
    "missilelauncher": "missile_launcher",
    "taser": "taser",
    "bow": "bow",
    "crossbow": "medium_crossbow",
}
MODES = (
    ("manual", ["SS"]),
    ("semi", ["SA"]),
    ("burst", ["SA", "BF"]),
    ("full", ["SA", "BF", "FA"]),
)
ATTRIBUTES = ("body", "quickness", "strength", "intelligence", "willpower")
MAX_ARMOR_PIECES = 10
# SR3 p. 125: wound levels by boxes of the worse monitor (as sr3-actor.mjs woundLevel).
WOUND_BOXES = ((10, "D"), (6, "S"), (3, "M"), (1, "L"))


def stat(document: Any, path: str, where: str) -> int | None:
    """A SimpleStat ({value, mod}: value + mod) or, before the system's migration, a number."""
    field = at(document, path)
    if isinstance(field, dict):
        value = number(field, "value", f"{where}.{path}")
        return None if value is None else value + (number(field, "mod", f"{where}.{path}") or 0)
    return number(document, path, where)


def line_by_shape(actor: dict[str, Any]) -> tuple[SR3Paths, str]:
    """The line whose shape the export has: a weapon's damage {value, mod} (the betas) or a
    number (the alphas)."""
    for item, where in items(actor):
        damage = at(item, SR3_LINES[-1].damage)
        if item.get("type") == SR3_LINES[-1].weapon_type and damage is not None:
            line = SR3_LINES[1] if isinstance(damage, dict) else SR3_LINES[0]
            return line, f"{where} ({item.get('name')}).{line.damage}"
    return SR3_LINES[-1], "$.items: no weapon with a damage (the lines' paths are alike)"


def linked_skill_id(system_link: Any) -> str:
    """The skill item's id of a weapon's link: the part before "::" (the specialization's
    index after it is not read: the sheet takes the skill's rating, as the module does)."""
    return str(system_link or "").split(SPECIALIZATION_SEPARATOR)[0].strip()


def read_sr3(actor: dict[str, Any], reading: Reading) -> None:
    paths = release_line(actor, SR3_LINES, line_by_shape, reading)
    for attribute in ATTRIBUTES:
        path = paths.attribute.format(attribute)
        value = stat(actor, path, "$")
        if value is None:
            reading.leave_out(f"$.{path}", f"not in the export: the sheet leaves {attribute} unset")
        else:
            reading.keep(attribute, max(1, value), f"$.{path}.value + mod")
    pool = stat(actor, paths.combat_pool, "$")
    if pool:
        reading.keep("combat_pool", pool, f"$.{paths.combat_pool}.value + mod")
    boxes = max(
        stat(actor, paths.health.format("physical"), "$") or 0,
        stat(actor, paths.health.format("stun"), "$") or 0,
    )
    level = next((name for least, name in WOUND_BOXES if boxes >= least), "none")
    reading.keep("wounds", level, "$.system.health: the worse monitor's boxes")
    by_id = {item["_id"]: (item, where) for item, where in items(actor) if item.get("_id")}
    armor: list[dict[str, Any]] = []
    weapons: list[dict[str, Any]] = []
    weapon_skills: dict[str, int] = {}
    for item, where in items(actor):
        where = f"{where} ({item.get('name')})"
        if item.get("type") == paths.wearable_type:
            ballistic = number(item, paths.ballistic, where) or 0
            impact = number(item, paths.impact, where) or 0
            if (ballistic or impact) and len(armor) < MAX_ARMOR_PIECES:
                piece = {
                    "name": str(item.get("name") or "")[:100],
                    "ballistic": ballistic,
                    "impact": impact,
                }
                reading.note(f"armor[{len(armor)}]", piece, where)
                armor.append(piece)
            continue
        if item.get("type") != paths.weapon_type:
            continue
        mode = key(at(item, paths.mode))
        modes = next((listed for prefix, listed in MODES if mode.startswith(prefix)), [])
        ammunition_class = at(item, paths.ammunition_class)
        category = CATEGORY.get(key(ammunition_class))
        if not modes:
            reading.leave_out(where, f"mode {at(item, paths.mode)!r}: not a ranged weapon")
            continue
        if category is None:
            reading.leave_out(
                where, f"ammunition class {ammunition_class!r} has no firefight SR3 category"
            )
            continue
        if len(weapons) == MAX_WEAPONS:
            reading.leave_out(where, f"a sheet carries at most {MAX_WEAPONS} weapons")
            continue
        damage_type = key(at(item, paths.damage_type))
        level = damage_type[:1].upper()
        if level not in ("L", "M", "S", "D"):
            reading.leave_out(
                where, f"damage type {at(item, paths.damage_type)!r} names no damage level"
            )
            continue
        ammo_item, ammo_where = by_id.get(at(item, paths.ammo_id), (None, ""))
        rounds = 0
        if isinstance(ammo_item, dict) and ammo_item.get("type") == paths.ammunition_type:
            rounds = number(ammo_item, paths.rounds, ammo_where) or 0
        else:
            reading.leave_out(f"{where}.{paths.ammo_id}", "no ammunition item loaded: 0 rounds")
        weapon_id = item_id(item) or reading.weapon_id(str(item.get("name") or "weapon"))
        weapons.append(
            {
                "id": weapon_id,
                "category": category,
                "power": max(0, stat(item, paths.damage, where) or 0),
                "damage_level": level,
                "damage_type": "stun" if damage_type.endswith("stun") else "physical",
                "modes": modes,
                "ammo": max(0, rounds),
                "recoil_compensation": max(0, stat(item, paths.recoil_compensation, where) or 0),
            }
        )
        reading.note(f"weapons[{len(weapons) - 1}]", weapon_id, where)
        link = at(item, paths.linked_skill) or at(item, paths.linked_skill_before)
        skill, skill_where = by_id.get(linked_skill_id(link), (None, ""))
        rating = 0
        source = f"{where}.{paths.linked_skill} {str(link or '')[:40]!r}: no skill item"
        if isinstance(skill, dict) and skill.get("type") == paths.skill_type:
            rating = max(0, stat(skill, paths.skill_rating, skill_where) or 0)
            source = f"{skill_where} ({skill.get('name')}).{paths.skill_rating}"
            if SPECIALIZATION_SEPARATOR in str(link):
                source += f" (the link {str(link)[:40]!r}: the skill before the specialization)"
        weapon_skills[weapon_id] = reading.note(f"weapon_skills.{weapon_id}", rating, source)
    reading.fields["armor"] = armor
    reading.keep_weapons(weapons, weapon_skills)
