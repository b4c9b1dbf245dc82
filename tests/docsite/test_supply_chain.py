"""Locked build tools and a gated deploy: requirements/lock.txt pins every Python tool the build
and tests use (within pyproject's ranges), set-up installs from it, and the Pages workflow runs the
data checks and the browser-free tests before it builds and publishes."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements" / "lock.txt"


def _locked() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in LOCK.read_text("utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep and version, f"not an exact pin: {line}"
        pins[canonicalize_name(name)] = version
    return pins


def _declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    found = [Requirement(r) for group in project["optional-dependencies"].values() for r in group]
    build = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["build-system"]
    found += [Requirement(r) for r in build["requires"]]
    return [r for r in found if canonicalize_name(r.name) != "neuron-field-guide"]


def test_every_declared_tool_is_pinned_within_its_range() -> None:
    pins = _locked()
    for requirement in _declared():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not in requirements/lock.txt"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"{requirement.name}=={pins[name]} is outside {requirement.specifier}")


def test_the_environment_matches_the_lock() -> None:
    for name, version in _locked().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            raise AssertionError(f"{name} is locked but not installed") from None
        assert installed == version, f"{name}: installed {installed}, locked {version}"


def test_setup_and_ci_install_from_the_lock() -> None:
    makefile = (ROOT / "Makefile").read_text("utf-8")
    assert re.search(r"pip install .*-r \$\(LOCK\)", makefile)
    assert "--no-deps" in makefile
    ci = (ROOT / ".github" / "workflows" / "ci.yml").read_text("utf-8")
    assert "requirements/lock.txt" in ci and "pip install -e '.[dev]'" not in ci


def test_pages_runs_data_checks_and_tests_before_building() -> None:
    text = (ROOT / ".github" / "workflows" / "pages.yml").read_text("utf-8")
    steps = [m.group(1).strip() for m in re.finditer(r"^\s+run: (.+)$", text, re.M)]
    assert steps.index("make check-data") < steps.index("make test-nobrowser") < \
        steps.index("make build")
    makefile = (ROOT / "Makefile").read_text("utf-8")
    assert re.search(r"^build: .*check-data", makefile, re.M)
    assert re.search(r'^test-nobrowser:.*\n\t\$\(PYTEST\) -m "not browser"', makefile, re.M)
