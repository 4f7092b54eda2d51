"""The one error of the imports: a file that cannot be read, naming the element or JSON path."""

from __future__ import annotations

from service.rules.ruleset import RuleViolation


class ImportRefused(RuleViolation):
    """A character file the import will not read (not XML, a DTD, too large, a value that is not
    a number): a 4xx problem naming `path`, the element or JSON path at fault. A RuleViolation,
    so the API maps it the way it maps the rules' own refusals."""

    def __init__(
        self, detail: str, path: str | None = None, kind: str = "import-refused", status: int = 422
    ) -> None:
        super().__init__(detail, path, kind, status)
