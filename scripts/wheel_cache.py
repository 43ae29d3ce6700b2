"""Registry downloads once per machine: wheels kept in opgen's cache, installs offline from it.

`install(python, requirements, logfile)` first installs with `--no-index
--find-links <cache>/wheels`, which never touches the network; only when the
cache lacks something does it `pip download` the requirements' whole
dependency closure into the cache (pip skips files already there) and install
offline from that. A venv made again, or another clone's, then costs no
download. The cache is `$OPGEN_CACHE_DIR/wheels` (default `~/.cache/opgen`,
beside ccache and the device check's venvs; scripts/cache-env.sh).

Used by scripts/device_check.py (the device's torch, the bench's peers) and
scripts/abi_matrix.py (one venv per PyTorch release).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def cache_dir() -> Path:
    base = os.environ.get("OPGEN_CACHE_DIR") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "opgen"
    return Path(base)


def wheels_dir() -> Path:
    path = cache_dir() / "wheels"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _pip(python: Path | str, args: list, logfile: Path) -> int:
    with open(logfile, "a") as log:
        log.write(f"$ {python} -m pip {' '.join(map(str, args))}\n")
        log.flush()
        return subprocess.run([str(python), "-m", "pip", *map(str, args)], stdout=log, stderr=subprocess.STDOUT).returncode


def _offline_install(python: Path | str, requirements: list[str], logfile: Path) -> int:
    return _pip(python, ["install", "-q", "--disable-pip-version-check", "--no-index", "--find-links", wheels_dir(),
                         *requirements], logfile)


def install(python: Path | str, requirements: list[str], logfile: Path) -> int:
    """Installs `requirements` into `python`'s environment; returns pip's exit code.

    `python` must be the environment's own interpreter (with pip), so that
    what is downloaded matches its Python version and platform."""
    if _offline_install(python, requirements, logfile) == 0:
        return 0
    code = _pip(python, ["download", "-q", "--disable-pip-version-check", "--only-binary=:all:", "-d", wheels_dir(),
                         *requirements], logfile)
    if code:
        return code
    return _offline_install(python, requirements, logfile)


def download_one(requirement: str, logfile: Path, python: Path | str = "python3") -> list[Path]:
    """The cached wheel(s) of one pinned `name==version` (downloaded once, without
    its dependencies): for files that travel unpacked, not installed here."""
    name, version = requirement.split("==")
    stem = f"{name.replace('-', '_')}-{version}-"
    found = sorted(wheels_dir().glob(f"{stem}*.whl"))
    if not found:
        _pip(python, ["download", "-q", "--disable-pip-version-check", "--no-deps", "--only-binary=:all:",
                      "-d", wheels_dir(), requirement], logfile)
        found = sorted(wheels_dir().glob(f"{stem}*.whl"))
    return found
