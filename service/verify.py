"""Checks an encounter's dice against its revealed secrets (docs/dice.md), event by event.

    python -m service.verify events.json [--secret HEX ...]

`events.json` is the console's exported fight log, a page of GET .../events, or a list of
events. Each revealed secret must open its commitment; every server die of every event rolled
under the HMAC version is derived again and must be the one recorded, in the proof and in the
result; events must come in the order of their sequences, each rolled with the commitment in
force. Given dice are reported as given; dice seeded by mt19937 as not verifiable. Exit status
1 on any mismatch, 2 on a file that cannot be read.

The derivation is service/rules/fair.py's, the one the service rolls with; the console's
verify.js does the same in the browser, in its own code.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.rules import fair


@dataclass
class Mismatch:
    step: str
    index: int
    expected: int
    found: int


@dataclass
class EventReport:
    """What the check says of one event: "verified", "failed" or "unverifiable"."""

    id: str
    type: str
    status: str
    sequence: int | None = None
    verified: int = 0
    given: list[str] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Report:
    events: list[EventReport]

    @property
    def ok(self) -> bool:
        return all(event.status != "failed" for event in self.events)

    def as_json(self) -> dict[str, Any]:
        """The report as the console's verify.js makes it (tests compare the two)."""
        return {
            "ok": self.ok,
            "events": [
                {
                    "id": e.id,
                    "type": e.type,
                    "status": e.status,
                    "sequence": e.sequence,
                    "verified": e.verified,
                    "given": e.given,
                    "mismatches": [
                        {"step": m.step, "index": m.index, "expected": m.expected, "found": m.found}
                        for m in e.mismatches
                    ],
                }
                for e in self.events
            ],
        }


def events_of(document: Any) -> list[dict[str, Any]]:
    """The events of an exported fight log ({"encounter", "events"}), a page of GET .../events
    ({"events", ...}) or a plain list."""
    events = document.get("events") if isinstance(document, dict) else document
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise ValueError("expected a list of events, or an object whose `events` is one")
    return events


def _dice_records(value: Any) -> Iterator[dict[str, Any]]:
    """Every die record ({"step", "sides", "values", ...}) in a result, but for what went off
    from an earlier event's seed (`went_off`: a held grenade's blast)."""
    if isinstance(value, list):
        for item in value:
            yield from _dice_records(item)
    elif isinstance(value, dict):
        if isinstance(value.get("step"), str) and isinstance(value.get("values"), list):
            yield value
            return
        for key, item in value.items():
            if key != "went_off":
                yield from _dice_records(item)


def _went_off(value: Any) -> bool:
    """Whether a result shows dice of what went off from an earlier event's seed."""
    if isinstance(value, list):
        return any(_went_off(item) for item in value)
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "went_off" and any(True for _ in _dice_records(item)):
                return True
            if key != "went_off" and _went_off(item):
                return True
    return False


def _seeds(value: Any) -> Iterator[Any]:
    """Every `seed` a result shows, but in what went off from an earlier event's seed."""
    if isinstance(value, list):
        for item in value:
            yield from _seeds(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key == "seed":
                yield item
            elif key != "went_off":
                yield from _seeds(item)


def _int(value: Any) -> int:
    """A number the file gives, or -1 for anything else (no sequence is)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def _same(record: Mapping[str, Any], roll: Mapping[str, Any]) -> bool:
    return all(record.get(k) == roll.get(k) for k in ("step", "sides", "values", "given"))


class _Check:
    """The check's running state: the secrets known, the commitment in force, the order."""

    def __init__(self, secrets: Mapping[str, bytes]) -> None:
        self.secrets = dict(secrets)
        self.ranges: dict[str, tuple[int, int]] = {}
        self.in_force: str | None = None
        self.last_sequence = 0

    def reveal(self, event: dict[str, Any], report: EventReport) -> None:
        result = event.get("result") or {}
        if result.get("kind") != "dice_revealed":
            return
        commitment = str(result.get("commitment"))
        try:
            secret = bytes.fromhex(str(result.get("secret")))
        except ValueError:
            secret = b""
        if fair.commitment(secret) != commitment:
            report.status = "failed"
            report.notes.append(f"the revealed secret does not open commitment {commitment}")
            return
        self.secrets[commitment] = secret
        self.ranges[commitment] = (
            _int(result.get("first_sequence")),
            _int(result.get("last_sequence")),
        )
        report.status = "verified"
        report.notes.append(f"the revealed secret opens commitment {commitment}")

    def rolled(self, event: dict[str, Any], proof: dict[str, Any], report: EventReport) -> None:
        sequence = proof.get("sequence")
        commitment = proof.get("commitment")
        report.sequence = sequence if isinstance(sequence, int) else None
        if not isinstance(sequence, int) or not isinstance(commitment, str):
            report.status = "failed"
            report.notes.append("the proof names no sequence or no commitment")
            return
        failed: list[str] = []
        if sequence <= self.last_sequence:
            failed.append(
                f"sequence {sequence} comes after {self.last_sequence}: events reordered, "
                "repeated or made up"
            )
        self.last_sequence = max(self.last_sequence, sequence)
        if self.in_force is not None and commitment != self.in_force:
            failed.append(f"rolled with commitment {commitment}, but {self.in_force} was in force")
        span = self.ranges.get(commitment)
        if span is not None and not span[0] <= sequence <= span[1]:
            failed.append(f"sequence {sequence} is outside the revealed span {span[0]}-{span[1]}")
        secret = self.secrets.get(commitment)
        rolls = [r for r in proof.get("rolls") or [] if isinstance(r, dict)]
        report.given = [str(r.get("step")) for r in rolls if r.get("given")]
        if secret is None:
            report.status = "failed" if failed else "unverifiable"
            report.notes += failed or [f"the secret of commitment {commitment} is not revealed"]
            return
        client_seed = proof.get("client_seed")
        streams: dict[str, fair.StepStream] = {}
        for roll in rolls:
            step, sides, values = str(roll.get("step")), roll.get("sides"), roll.get("values")
            if roll.get("given") or not isinstance(sides, int) or not isinstance(values, list):
                continue
            if not 1 <= sides <= fair.MAX_SIDES:
                failed.append(f"step '{step}': a d{sides} is no die of this version")
                continue
            stream = streams.get(step)
            if stream is None:
                stream = streams[step] = fair.StepStream(
                    secret, str(event.get("encounter")), sequence, step, client_seed
                )
            expected = stream.draw(len(values), sides)
            for index, (want, found) in enumerate(zip(expected, values, strict=True)):
                if want == found:
                    report.verified += 1
                else:
                    report.mismatches.append(Mismatch(step, index, want, found))
        for record in _dice_records(event.get("result")):
            if not any(_same(record, roll) for roll in rolls):
                failed.append(
                    f"the result shows dice of step '{record.get('step')}' the proof does not hold"
                )
        seed = fair.derived_seed(secret, str(event.get("encounter")), sequence, client_seed)
        if any(shown is not None and shown != seed for shown in _seeds(event.get("result"))):
            failed.append(f"the result's seed is not the secret's ({seed})")
        report.notes += failed
        report.status = "failed" if failed or report.mismatches else "verified"


def verify(events: Sequence[dict[str, Any]], secrets: Sequence[bytes] = ()) -> Report:
    """The check of `events` (oldest first), with `secrets` known besides the revealed ones."""
    check = _Check({fair.commitment(secret): secret for secret in secrets})
    # The reveals first: an event is checked with a secret revealed after it.
    for event in events:
        check.reveal(event, EventReport("", "", "verified"))
    reports = []
    for event in events:
        report = EventReport(str(event.get("id", "")), str(event.get("type", "")), "")
        check.reveal(event, report)
        result = event.get("result")
        if isinstance(result, dict) and result.get("kind") == "dice_revealed":
            opened = result.get("commitment")
            if check.in_force is not None and opened != check.in_force:
                report.status = "failed"
                report.notes.append(
                    f"reveals commitment {opened}, but {check.in_force} was in force"
                )
        proof = event.get("dice")
        if isinstance(proof, dict) and proof.get("version") == fair.HMAC_VERSION:
            check.rolled(event, proof, report)
        elif isinstance(proof, dict) or any(True for _ in _dice_records(event.get("result"))):
            report.status = report.status or "unverifiable"
            report.notes.append("not verifiable (mt19937 seed)")
        if _went_off(event.get("result")):
            report.status = report.status or "unverifiable"
            report.notes.append("a held grenade's blast: seeded (mt19937), not verifiable")
        committed = event.get("commitment")
        if isinstance(committed, dict) and isinstance(committed.get("commitment"), str):
            check.in_force = committed["commitment"]
            report.status = report.status or "verified"
            report.notes.append(f"commitment {check.in_force} takes over")
        if report.status:
            reports.append(report)
    return Report(reports)


def _described(report: EventReport) -> str:
    where = f"event {report.id} ({report.type}" + (
        f", sequence {report.sequence})" if report.sequence is not None else ")"
    )
    lines = [f"{where}: {report.status}"]
    if report.verified:
        lines.append(f"  {report.verified} dice are the secret's")
    lines += [f"  given at the table (not verified): {step}" for step in report.given]
    lines += [
        f"  step '{m.step}' die {m.index}: the secret gives {m.expected}, the event shows {m.found}"
        for m in report.mismatches
    ]
    lines += [f"  {note}" for note in report.notes]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.verify", description=__doc__)
    parser.add_argument("events", help="the exported fight log, or GET .../events as JSON")
    parser.add_argument(
        "--secret",
        action="append",
        default=[],
        help="a revealed secret (hex) besides those the events hold; may be repeated",
    )
    args = parser.parse_args(argv)
    try:
        with open(args.events, encoding="utf-8") as file:
            events = events_of(json.load(file))
        secrets = [bytes.fromhex(secret) for secret in args.secret]
    except (OSError, ValueError) as error:
        sys.stderr.write(f"firefight verify: cannot read: {error}\n")
        return 2
    report = verify(events, secrets)
    for event in report.events:
        sys.stdout.write(_described(event) + "\n")
    failed = sum(1 for e in report.events if e.status == "failed")
    sys.stdout.write(("every die checks out" if report.ok else f"{failed} events fail") + "\n")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
