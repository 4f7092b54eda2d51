"""The sr3e system's actor, as sr3-actor.mjs reads it (module/models of mirnau/sr3e): a stat is
{value, mod} (value + mod), a weapon's rounds are in the ammunition item it names, its skill in
the skill item it links, armour is every wearable with a rating."""

from __future__ import annotations

from typing import Any

from schemas.sr3 import MAX_WEAPONS
from service.imports.foundry_json import at, item_id, items, key, number
from service.imports.report import Reading

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


def read_sr3(actor: dict[str, Any], reading: Reading) -> None:
    for attribute in ATTRIBUTES:
        path = f"system.attributes.{attribute}"
        value = stat(actor, path, "$")
        if value is None:
            reading.leave_out(f"$.{path}", f"not in the export: the sheet leaves {attribute} unset")
        else:
            reading.keep(attribute, max(1, value), f"$.{path}.value + mod")
    pool = stat(actor, "system.dicePools.combat", "$")
    if pool:
        reading.keep("combat_pool", pool, "$.system.dicePools.combat.value + mod")
    boxes = max(
        stat(actor, "system.health.physical", "$") or 0, stat(actor, "system.health.stun", "$") or 0
    )
    level = next((name for least, name in WOUND_BOXES if boxes >= least), "none")
    reading.keep("wounds", level, "$.system.health: the worse monitor's boxes")
    by_id = {item.get("_id"): item for item, _ in items(actor)}
    armor: list[dict[str, Any]] = []
    weapons: list[dict[str, Any]] = []
    weapon_skills: dict[str, int] = {}
    for item, where in items(actor):
        where = f"{where} ({item.get('name')})"
        system = item.get("system") or {}
        if item.get("type") == "wearable":
            ballistic = number(system, "ballistic", where + ".system") or 0
            impact = number(system, "impact", where + ".system") or 0
            if (ballistic or impact) and len(armor) < MAX_ARMOR_PIECES:
                piece = {
                    "name": str(item.get("name") or "")[:100],
                    "ballistic": ballistic,
                    "impact": impact,
                }
                reading.note(f"armor[{len(armor)}]", piece, where)
                armor.append(piece)
            continue
        if item.get("type") != "weapon":
            continue
        mode = key(system.get("mode"))
        modes = next((listed for prefix, listed in MODES if mode.startswith(prefix)), [])
        category = CATEGORY.get(key(system.get("ammunitionClass")))
        if not modes:
            reading.leave_out(where, f"mode {system.get('mode')!r}: not a ranged weapon")
            continue
        if category is None:
            reading.leave_out(
                where,
                f"ammunition class {system.get('ammunitionClass')!r} has no firefight SR3 category",
            )
            continue
        if len(weapons) == MAX_WEAPONS:
            reading.leave_out(where, f"a sheet carries at most {MAX_WEAPONS} weapons")
            continue
        damage_type = key(system.get("damageType"))
        level = damage_type[:1].upper()
        if level not in ("L", "M", "S", "D"):
            reading.leave_out(
                where, f"damage type {system.get('damageType')!r} names no damage level"
            )
            continue
        ammo_item = by_id.get(system.get("ammoId"))
        rounds = 0
        if isinstance(ammo_item, dict) and ammo_item.get("type") == "ammunition":
            rounds = number(ammo_item, "system.rounds", "$.items[ammoId]") or 0
        else:
            reading.leave_out(f"{where}.system.ammoId", "no ammunition item loaded: 0 rounds")
        weapon_id = item_id(item) or reading.weapon_id(str(item.get("name") or "weapon"))
        weapons.append(
            {
                "id": weapon_id,
                "category": category,
                "power": max(0, stat(system, "damage", where + ".system") or 0),
                "damage_level": level,
                "damage_type": "stun" if damage_type.endswith("stun") else "physical",
                "modes": modes,
                "ammo": max(0, rounds),
                "recoil_compensation": max(0, stat(system, "recoilComp", where + ".system") or 0),
            }
        )
        reading.note(f"weapons[{len(weapons) - 1}]", weapon_id, where)
        skill = by_id.get(system.get("linkedSkillId") or system.get("linkedSkilliD"))
        rating = 0
        source = f"{where}.system.linkedSkillId: no skill item"
        if isinstance(skill, dict) and skill.get("type") == "skill":
            rating = max(0, stat(skill, "system.activeSkill.value", "$.items[linkedSkillId]") or 0)
            source = f"skill item {skill.get('name')!r}: system.activeSkill.value"
        weapon_skills[weapon_id] = reading.note(f"weapon_skills.{weapon_id}", rating, source)
    reading.fields["armor"] = armor
    reading.fields["weapons"] = weapons
    reading.fields["weapon_skills"] = weapon_skills
    if weapons:
        first = str(weapons[0]["id"])
        reading.keep("skill", weapon_skills[first], f"weapon_skills.{first} (the first gun's)")
