#!/usr/bin/env bash
# The Python package's tests, as CI and the README run them: a virtual environment
# ($SITESIM_VENV, default .venv in the repository root) with maturin, pytest, pandas,
# matplotlib, nbformat and gymnasium; the package built and installed into it (maturin
# develop, a debug build in the root's target directory, so that it reuses what `cargo
# test` compiled: under a minute after it, against six for a cold release build); the `sitesim`
# binary the tests compare with ($SITESIM_BIN, else built by `cargo build`); then pytest
# on python/tests. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${SITESIM_VENV:-.venv}"
if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv"
fi
venv="$(cd "$venv" && pwd)"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  maturin pytest pandas matplotlib nbformat gymnasium
if [ -z "${SITESIM_BIN:-}" ]; then
  cargo build --quiet --bin sitesim
fi
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}" VIRTUAL_ENV="$venv" \
  "$venv/bin/maturin" develop --quiet --manifest-path python/Cargo.toml
"$venv/bin/python" -m pytest python/tests "$@"
