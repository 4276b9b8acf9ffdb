#!/usr/bin/env bash
# Diagnosis quality on the dev corpus: evidence only, then each bench model as a user gets it (the
# default 60 s budget, whose plan has no room for debugger commands), with a 120 s budget (room for
# a command or two: the debugging session), and as a one-shot baseline (no commands, whatever the budget).
# One configuration at a time: two model runs at once would make both numbers wrong.
#   bench/quality.sh [OUT_DIR]      (default bench/results; models from ../shared/tools/bench-model.sh)
# AUTODBG_BIN picks the autodbg to measure (default .venv/bin/autodbg): point it at a frozen install
# when you keep editing the checkout while it runs, since an editable install picks up every edit.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench/results}
mkdir -p "$out"
models_dir=${BENCH_MODELS:-/work/bench-models}
bash ../shared/tools/bench-model.sh "$models_dir" all >/dev/null
autodbg=${AUTODBG_BIN:-.venv/bin/autodbg}
for size in 1.5b 0.5b; do
  case $size in
    1.5b) model="$models_dir/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" ;;
    0.5b) model="$models_dir/qwen2.5-coder-0.5b-instruct.gguf" ;;
  esac
  "$autodbg" bench bench/corpus/dev --model "$model" --json "$out/$size-session.json" > "$out/$size-session.txt"
  "$autodbg" bench bench/corpus/dev --model "$model" --timeout 120 --json "$out/$size-commands.json" > "$out/$size-commands.txt"
  "$autodbg" bench bench/corpus/dev --model "$model" --turns 0 --json "$out/$size-oneshot.json" > "$out/$size-oneshot.txt"
done
"$autodbg" bench bench/corpus/dev --model none --json "$out/none.json" > "$out/none.txt"
python3 bench/table.py "$out"/none.json "$out"/1.5b-session.json "$out"/1.5b-commands.json "$out"/1.5b-oneshot.json \
  "$out"/0.5b-session.json "$out"/0.5b-commands.json "$out"/0.5b-oneshot.json
