"""Registry downloads happen once per machine (scripts/wheel_cache.py, used for
the device check's torch venv, the bench's peers and the ABI matrix's
venvs): the first install downloads into opgen's cache, and a venv made
again installs from the cache with the registry gone. The registry here is a
PEP 503 index on disk (file://), so the test needs no network."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import wheel_cache  # noqa: E402

WHEEL = "opgen_probe-1.0-py3-none-any.whl"


def make_wheel(path: Path, value: int) -> None:
    """The smallest wheel pip installs: one module, METADATA, WHEEL, RECORD."""
    files = {
        "opgen_probe/__init__.py": f"VALUE = {value}\n",
        "opgen_probe-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: opgen-probe\nVersion: 1.0\n",
        "opgen_probe-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in files) + "opgen_probe-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
        wheel.writestr("opgen_probe-1.0.dist-info/RECORD", record)


def make_venv(path: Path) -> Path:
    # --system-site-packages --without-pip: the system's pip runs it (fast).
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", path], check=True)
    return path / "bin" / "python"


def probe_value(python: Path) -> str:
    return subprocess.run([python, "-c", "import opgen_probe; print(opgen_probe.VALUE)"],
                          capture_output=True, text=True).stdout.strip()


@pytest.fixture
def registry(tmp_path, monkeypatch):
    index = tmp_path / "registry" / "simple"
    project = index / "opgen-probe"
    project.mkdir(parents=True)
    make_wheel(project / WHEEL, 1)
    (project / "index.html").write_text(f'<html><body><a href="{WHEEL}">{WHEEL}</a></body></html>\n')
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PIP_INDEX_URL", index.as_uri() + "/")
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    monkeypatch.delenv("PIP_NO_INDEX", raising=False)
    return index


def test_downloaded_once_then_installed_offline(tmp_path, registry, monkeypatch):
    log = tmp_path / "pip.log"
    first = make_venv(tmp_path / "venv-a")
    assert wheel_cache.install(first, ["opgen-probe==1.0"], log) == 0, log.read_text()
    assert probe_value(first) == "1"
    assert (tmp_path / "cache" / "wheels" / WHEEL).is_file()

    # The registry gone: a venv made again installs what the cache holds.
    monkeypatch.setenv("PIP_INDEX_URL", (tmp_path / "nowhere").as_uri() + "/")
    log.write_text("")
    second = make_venv(tmp_path / "venv-b")
    assert wheel_cache.install(second, ["opgen-probe==1.0"], log) == 0, log.read_text()
    assert probe_value(second) == "1"
    assert " download " not in log.read_text(), log.read_text()


def test_missing_everywhere_fails(tmp_path, registry):
    log = tmp_path / "pip.log"
    python = make_venv(tmp_path / "venv")
    assert wheel_cache.install(python, ["opgen-probe==9.9"], log) != 0
    assert "download" in log.read_text()


def test_download_one_keeps_the_wheel(tmp_path, registry):
    log = tmp_path / "pip.log"
    found = wheel_cache.download_one("opgen-probe==1.0", log, sys.executable)
    assert [p.name for p in found] == [WHEEL], log.read_text()
    (registry / "opgen-probe" / WHEEL).unlink()
    assert [p.name for p in wheel_cache.download_one("opgen-probe==1.0", log, sys.executable)] == [WHEEL]
