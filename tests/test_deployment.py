"""The compose deployment's files, checked for structure (no Docker engine on our machines: the
processes themselves are tested natively in tests/app). What a user relies on: one image
built once, a non-root user, pinned images and dependencies, a health check and a restart
policy on every service, persistent Redis, and no credential written in the files."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
SERVICES = COMPOSE["services"]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
LOCK = {
    canonicalize_name(name): version
    for name, version in re.findall(
        r"^([A-Za-z0-9_.-]+)==(\S+)$", (ROOT / "docker" / "requirements.lock").read_text(), re.M
    )
}
PINNED = re.compile(r"^[a-z0-9./-]+:\d+\.\d+(\.\d+)?(-[a-z0-9]+)*(@sha256:[0-9a-f]{64})?$")


def test_the_image_is_built_once_and_run_by_api_and_workers() -> None:
    built = [name for name, s in SERVICES.items() if "build" in s]
    assert built == ["api"]
    assert SERVICES["worker"]["image"] == SERVICES["api"]["image"]
    assert SERVICES["worker"]["command"] == ["rwaopt", "worker"]


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_every_service_has_a_health_check_and_a_restart_policy(name: str) -> None:
    service = SERVICES[name]
    assert service["healthcheck"]["test"], name
    assert service["restart"] in ("unless-stopped", "always", "on-failure"), name


def test_the_worker_health_check_is_rwaopt_worker_check() -> None:
    assert SERVICES["worker"]["healthcheck"]["test"] == ["CMD", "rwaopt", "worker", "--check"]


@pytest.mark.parametrize("name", ["postgres", "redis"])
def test_third_party_images_are_pinned(name: str) -> None:
    image = SERVICES[name]["image"]
    assert PINNED.match(image), f"{name}: {image} is not pinned to a version"


def test_base_image_is_pinned_and_the_user_is_not_root() -> None:
    (base,) = re.findall(r"^FROM (\S+)", DOCKERFILE, re.M)
    assert PINNED.match(base), base
    users = re.findall(r"^USER (\S+)", DOCKERFILE, re.M)
    assert users and users[-1].split(":")[0] not in ("root", "0")


def test_redis_persists_its_queue() -> None:
    redis = SERVICES["redis"]
    assert "--appendonly" in redis["command"] and "yes" in redis["command"]
    assert any(v.endswith(":/data") for v in redis["volumes"])
    assert {v.split(":")[0] for v in redis["volumes"]} <= set(COMPOSE["volumes"])


def test_credentials_come_from_the_env_file_and_are_required() -> None:
    text = (ROOT / "docker" / "compose.yaml").read_text()
    for variable in ("POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB", "RWAOPT_API_KEYS"):
        assert f"${{{variable}:?" in text, f"{variable} is not required"
    postgres_env = SERVICES["postgres"]["environment"]
    assert all(str(v).startswith("${") for v in postgres_env.values())
    example = (ROOT / "docker" / ".env.example").read_text()
    assert re.search(r"^POSTGRES_PASSWORD=$", example, re.M)  # no default password shipped
    assert re.search(r"^RWAOPT_API_KEYS=$", example, re.M)
    # review (session 33): workers at the default budget could ask for 160 % of the host
    assert "${RWAOPT_SOLVE_MEMORY_MB:?" in text and re.search(
        r"^RWAOPT_SOLVE_MEMORY_MB=$", example, re.M
    )
    # and the api checks plans against the workers' budget (review, session 35: it checked
    # its own default, 80 % of its host, and queued plans the workers then failed)
    assert (SERVICES["worker"]["environment"]["RWAOPT_SOLVE_MEMORY_MB"]
            == SERVICES["api"]["environment"]["RWAOPT_SOLVE_MEMORY_MB"])
    assert "RWAOPT_API_KEYS" in SERVICES["api"]["environment"]  # it listens on 0.0.0.0
    assert "docker/.env" in (ROOT / ".gitignore").read_text().split()


def test_the_lock_pins_every_runtime_dependency_within_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for line in project["dependencies"]:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in LOCK, f"{name} is not in docker/requirements.lock"
        assert requirement.specifier.contains(LOCK[name], prereleases=True), (
            f"{name}=={LOCK[name]} does not satisfy {requirement.specifier}"
        )
    assert "pytest" not in LOCK and "mypy" not in LOCK  # runtime only
    assert "requirements.lock" in DOCKERFILE and "--no-deps ." in DOCKERFILE


def test_every_setting_is_in_the_readme_table() -> None:
    """Each RWAOPT_* variable the settings read has a row in the README's settings table
    (RWAOPT_MAX_SOLVE_S was quoted in an error message but not documented)."""
    from app.settings import Settings

    readme = (ROOT / "README.md").read_text()
    rows = {
        name
        for line in readme.splitlines()
        if line.startswith("| `RWAOPT_")
        for name in re.findall(r"`(RWAOPT_\w+)`", line.split("|")[1])
    }
    assert {f"RWAOPT_{name.upper()}" for name in Settings.model_fields} <= rows


def test_the_readme_names_every_sweep_csv_column() -> None:
    from app.sweeps import CSV_COLUMNS

    readme = (ROOT / "README.md").read_text()
    paragraph = readme.split("Results have one row per point,")[1].split("A point an")[0]
    assert [c for c in CSV_COLUMNS if not re.search(rf"\b{c}\b", paragraph)] == []


def test_every_data_file_of_the_packages_is_installed() -> None:
    """Review (session 33): the image installs rwaopt with `pip install .` (not editable), and
    `models/printed/*.json` was not in package-data: every reproduction in the compose
    deployment failed with FileNotFoundError, while `make test` (an editable install) passed.
    Every file of app/, models/ and solver/ that is not Python must match a package-data glob
    of the package that holds it, as setuptools matches them."""
    import fnmatch
    import subprocess

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    globs: dict[str, list[str]] = data["package-data"]
    tracked = subprocess.run(
        ["git", "ls-files", "app", "models", "solver"], cwd=ROOT, capture_output=True,
        text=True, check=True,
    ).stdout.split()
    missing = []
    for name in tracked:
        path = Path(name)
        if path.suffix == ".py" or "__pycache__" in path.parts:
            continue
        package = path.parent  # the deepest folder with an __init__.py holds it
        while not (ROOT / package / "__init__.py").exists():
            package = package.parent
        dotted = ".".join(package.parts)
        inside = path.relative_to(package).as_posix()
        if not any(fnmatch.fnmatch(inside, g) for g in globs.get(dotted, [])):
            missing.append(name)
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"


def test_the_build_context_leaves_out_the_virtualenv_and_the_secrets() -> None:
    """Review (session 35): the context was the whole checkout, its 834 MB .venv and
    docker/.env (the passwords) included; the image copies only the packages, but every
    build sent them to the engine."""
    ignored = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    for path in (".venv", ".git", "docker/.env", "tests", "docs"):
        assert path in ignored, path
    for line in re.findall(r"^COPY (.+)$", DOCKERFILE, re.M):
        for copied in line.split()[:-1]:  # every source; the last word is the destination
            assert copied not in ignored, copied
