"""The package dependency direction of design.md §2 and the library boundaries of style.md §1.

calibration <- vision <- tracking <- referee: a package imports only packages to its left.
Only vision/ and calibration/ touch OpenCV; only vision/ touches ultralytics or onnxruntime;
only referee/live touches FastAPI; tracking/ and referee/rules/ are numpy and the stdlib.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ORDER = ["calibration", "vision", "tracking", "referee"]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _top(name: str) -> str:
    return name.split(".")[0]


@pytest.mark.parametrize("package", ORDER, ids=ORDER)
def test_packages_import_only_to_their_left(package: str) -> None:
    allowed = set(ORDER[: ORDER.index(package) + 1])
    forbidden = set(ORDER) - allowed
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _modules(package)
        for name in _imports(path)
        if _top(name) in forbidden
    ]
    assert not offenders, "\n".join(offenders)


LIBRARY_HOMES = {
    "cv2": {"calibration", "vision", "referee/review", "referee/live", "referee/cli"},
    "ultralytics": {"vision"},
    "onnxruntime": {"vision"},
    "fastapi": {"referee/live"},
    "uvicorn": {"referee/live", "referee/cli"},
}


def _home_of(path: Path) -> str:
    parts = path.relative_to(ROOT).parts
    return "/".join(parts[:2]) if parts[0] == "referee" else parts[0]


@pytest.mark.parametrize("library", sorted(LIBRARY_HOMES), ids=sorted(LIBRARY_HOMES))
def test_heavy_libraries_stay_at_their_edges(library: str) -> None:
    homes = LIBRARY_HOMES[library]
    offenders = []
    for package in ORDER:
        for path in _modules(package):
            home = _home_of(path)
            if home in homes or home.split("/")[0] in homes:
                continue
            if any(_top(name) == library for name in _imports(path)):
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, f"{library} imported outside {sorted(homes)}: {offenders}"


@pytest.mark.parametrize("package", ["tracking", "referee/rules"], ids=["tracking", "rules"])
def test_core_is_numpy_and_stdlib(package: str) -> None:
    allowed_third_party = {"numpy", "filterpy", "scipy"} if package == "tracking" else set()
    own = set(ORDER)
    import sys

    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _modules(package)
        for name in _imports(path)
        if _top(name) not in stdlib | own | allowed_third_party
    ]
    assert not offenders, "\n".join(offenders)
