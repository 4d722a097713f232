"""Shared fixtures: the repository, the shared logs, and the `sitesim` binary the
Python results are compared with."""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WORKLOADS = REPO.parent / "shared" / "workloads"
KTH = WORKLOADS / "KTH-SP2-1996-2.swf"


def shared_log(path: Path) -> Path:
    """A log of ../shared/workloads: skipped when missing, a failure under CI."""
    if not path.is_file():
        message = f"{path} is missing: the tests on real logs need ../shared/workloads"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def kth() -> Path:
    """The KTH log of ../shared/workloads."""
    return shared_log(KTH)


@pytest.fixture(scope="session", params=["KTH-SP2-1996-2.swf", "CEA-Curie-sample.swf",
                                         "lublin_256.swf"])
def real_log(request) -> Path:
    """Each log of ../shared/workloads: KTH, the Curie sample and Lublin's model."""
    return shared_log(WORKLOADS / request.param)


@pytest.fixture(scope="session")
def sitesim_bin() -> Path:
    """The CLI: $SITESIM_BIN, else target/debug/sitesim (under $CARGO_TARGET_DIR if
    set), built by cargo if it is not there."""
    if "SITESIM_BIN" in os.environ:
        return Path(os.environ["SITESIM_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    binary = target / "debug" / "sitesim"
    if not binary.is_file():
        subprocess.run(["cargo", "build", "--bin", "sitesim"], cwd=REPO, check=True)
    return binary


@pytest.fixture
def cli(sitesim_bin):
    """Runs `sitesim ARGS...`; returns the finished process (stdout and stderr as text)."""

    def run(*args, check=True):
        return subprocess.run(
            [str(sitesim_bin), *map(str, args)],
            capture_output=True,
            text=True,
            check=check,
        )

    return run
