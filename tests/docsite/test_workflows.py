"""The GitHub workflows validate offline and follow the hardening rules."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.site

WORKFLOWS = sorted((Path(__file__).resolve().parents[2] / ".github" / "workflows").glob("*.yml"))
USES = re.compile(r"^\s*(?:-\s*)?uses:\s*(\S+)(.*)$", re.M)


def _check_jsonschema() -> list[str]:
    exe = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "check_jsonschema"]


def test_workflows_exist():
    assert {p.name for p in WORKFLOWS} >= {"ci.yml", "pages.yml"}


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_validates_against_schema(workflow):
    proc = subprocess.run([*_check_jsonschema(), "--builtin-schema", "vendor.github-workflows",
                           str(workflow)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_actions_pinned_by_sha_with_version_comment(workflow):
    text = workflow.read_text("utf-8")
    uses = USES.findall(text)
    assert uses, "no actions used"
    for ref, rest in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}", ref), ref
        assert re.search(r"#\s*v\d+\.\d+\.\d+", rest), f"{ref} lacks a # vX.Y.Z comment"


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_least_privilege(workflow):
    text = workflow.read_text("utf-8")
    assert re.search(r"^permissions: \{\}$", text, re.M), "top-level permissions: {} missing"
    assert "concurrency:" in text
    checkouts = text.count("actions/checkout@")
    assert text.count("persist-credentials: false") == checkouts
