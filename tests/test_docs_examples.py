"""The examples in docs/ are what the tools do: a page that shows an input and its output,
or an input and its error, is checked against the real parser and the real command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.cli import main
from referee.declarations import DeclarationsError, parse_declarations

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _blocks(page: str) -> list[str]:
    """The page's fenced blocks that are plain or JSON (not shell), in order."""
    return re.findall(r"```(?:json)?\n(.*?)```", (DOCS / page).read_text(encoding="utf-8"), re.S)


def test_the_declarations_pages_example_files_are_read() -> None:
    for text in _blocks("declarations.md")[:2]:
        assert parse_declarations(text).entries


REFUSED = re.findall(
    r"^\| `(\{.*?\})` \| `(.*?)`",
    (DOCS / "declarations.md").read_text(encoding="utf-8"),
    re.M,
)


@pytest.mark.parametrize(("line", "message"), REFUSED, ids=[str(i) for i in range(len(REFUSED))])
def test_each_refused_line_of_the_declarations_page_is_refused_as_it_says(
    line: str, message: str
) -> None:
    with pytest.raises(DeclarationsError) as refused:
        parse_declarations(line)
    assert message.split("...")[0].strip() in str(refused.value)


def test_the_refused_lines_table_is_there() -> None:
    assert len(REFUSED) >= 5


def test_the_scenarios_pages_examples_print_what_the_page_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocks = _blocks("scenarios.md")
    pairs = list(zip(blocks[0::2], blocks[1::2], strict=False))[:2]
    assert len(pairs) == 2
    for i, (scenario, shown) in enumerate(pairs):
        path = tmp_path / f"example{i}.json"
        path.write_text(scenario, encoding="utf-8")
        main(["rules", "run", str(path), "--explain"])
        printed = capsys.readouterr().out.strip()
        expected = "\n".join(x for x in shown.splitlines() if not x.startswith("$")).strip()
        assert printed == expected
