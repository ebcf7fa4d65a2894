#!/usr/bin/env bash
# A Python venv with Hugging Face `datasets` and `pyarrow`, for the tests that read fixtures
# made by real `datasets` (tests/fixtures/hub/make.py).
#
#   eval "$(.ci/venv.sh)"    # creates it (or reuses it); prints `export SPANREVIEW_TEST_PYTHON=...`
#
# The venv lives in target/pyenv (SPANREVIEW_PYENV overrides) and is reused when it already
# has both packages. Needs python3 with its venv module (Debian: python3-venv).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${SPANREVIEW_PYENV:-$PWD/target/pyenv}
py=$dir/bin/python
if ! [ -x "$py" ] || ! "$py" -c 'import datasets, pyarrow' 2>/dev/null; then
  rm -rf "$dir"
  mkdir -p "$(dirname "$dir")"
  python3 -m venv "$dir" >&2
  "$py" -m pip install --quiet --disable-pip-version-check 'datasets>=4' pyarrow >&2
fi
echo "export SPANREVIEW_TEST_PYTHON=$py"
