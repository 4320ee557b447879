#!/usr/bin/env bash
# Regenerate the healthy-log corpus in tests/healthy/*.log.
#
# Every log is the unedited stdout+stderr (2>&1) of a real, successful run of
# one of the scripts in tests/healthy/scripts/ on CPU. A run that exits non-zero
# does not replace the existing log; the script reports it and exits 1 at the end.
#
# Usage:  bash tests/healthy/capture.sh            # all logs
#         bash tests/healthy/capture.sh NAME...    # only these (log names without .log)
#
# Needs (see README.md for the versions used): torch (CPU build), transformers,
# accelerate, lightning, tqdm, colorlog; gcc for torch.compile; util-linux
# `script` for the one log captured through a pseudo-terminal.
# Nothing is downloaded at run time: HF models are built from configs, all data
# is synthetic, HF_HUB_OFFLINE=1 is set.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SCRIPTS="$HERE/scripts"
WORK="$(mktemp -d /tmp/healthy-capture.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# Isolate from any user-level HF/accelerate config and caches; never reach the hub.
export HF_HOME="$WORK/hf_home"
export HF_HUB_OFFLINE=1
# torch.compile: start from an empty inductor cache so the log shows a cold compile.
export TORCHINDUCTOR_CACHE_DIR="$WORK/inductor_cache"

python - <<'EOF'
import importlib.metadata as md
import platform
for p in ["torch", "transformers", "accelerate", "lightning", "tqdm", "colorlog", "rich"]:
    try:
        print(f"{p}=={md.version(p)}", end="  ")
    except md.PackageNotFoundError:
        print(f"{p}: MISSING", end="  ")
print(f"python=={platform.python_version()}")
import torch
if not torch.__version__.startswith("2.13.0"):
    print(f"NOTE: corpus was captured with torch 2.13.0+cpu, this is {torch.__version__}")
EOF

failed=()
ok=()

# run NAME COMMAND...   (COMMAND runs in scripts/, via bash -c, stdout+stderr to NAME.log)
run() {
    local name="$1"; shift
    local cmd="$*"
    if [ "${#SELECTED[@]}" -gt 0 ] && [[ ! " ${SELECTED[*]} " == *" $name "* ]]; then
        return 0
    fi
    echo "==> $name: $cmd"
    local tmp="$WORK/$name.log"
    local start=$SECONDS
    (cd "$SCRIPTS" && bash -c "$cmd") > "$tmp" 2>&1
    local rc=$?
    local size
    size=$(stat -c %s "$tmp")
    if [ "$rc" -eq 0 ]; then
        mv "$tmp" "$HERE/$name.log"
        ok+=("$name")
        echo "    ok in $((SECONDS - start))s, $size bytes"
        if [ "$size" -gt 307200 ]; then echo "    WARNING: $name.log is over 300 KB"; fi
    else
        cp "$tmp" "/tmp/healthy-capture-$name.failed.log" 2>/dev/null || true
        failed+=("$name")
        echo "    FAILED with exit code $rc (output kept in /tmp/healthy-capture-$name.failed.log; $name.log left as it was)"
        tail -n 20 "$tmp" | sed 's/^/    | /'
    fi
}

SELECTED=("$@")
OUT="$WORK/out"   # artefacts the runs write (checkpoints, HF output dirs) go here, then are deleted
mkdir -p "$OUT"

# 1. torchrun DDP, gloo, 2 processes; per-step loss via logging with timestamps;
#    --tee 3 prefixes every line of each worker with [default<local_rank>]:
run torchrun-ddp-gloo-2proc-tee \
    "torchrun --standalone --nproc_per_node=2 --tee 3 --log-dir '$OUT/torchelastic' ddp_gloo_train.py"

# 2. plain gloo collectives (+ a short DDP phase) with c10d INFO logging
run torchrun-gloo-collectives-debug-info \
    "TORCH_DISTRIBUTED_DEBUG=INFO TORCH_CPP_LOG_LEVEL=INFO torchrun --standalone --nproc_per_node=2 collectives_debug.py"

# 3. single process, nested tqdm bars ('\r' updates, ESC[A cursor-up for position=1)
run tqdm-progress-train "python tqdm_train.py"

# 4. coloured (ANSI) logging via colorlog, with FutureWarning routed through logging
run colorlog-ansi-train "python colorlog_train.py"

# 5. HF Trainer, tiny random GPT-2 from config, single process
run hf-trainer-tiny-gpt2 "python hf_trainer_tiny.py '$OUT/hf-trainer'"

# 6. the same HF Trainer script under torchrun: DDP over 2 CPU processes (gloo)
run hf-trainer-torchrun-ddp-2proc \
    "torchrun --standalone --nproc_per_node=2 hf_trainer_tiny.py '$OUT/hf-trainer-ddp'"

# 7. HF Accelerate, 2 processes on CPU. `accelerate launch --cpu --num_processes 2`
#    without a config starts ONE process (multi-CPU there needs mpirun), so the
#    script asks for cpu=True itself and the launch uses the torch.distributed launcher.
run accelerate-launch-2proc-cpu \
    "accelerate launch --multi_gpu --num_processes 2 accelerate_train.py '$OUT/accelerate-state'"

# 8. Lightning, strategy="ddp", 2 CPU devices, TQDM progress bar
run lightning-ddp-cpu-2proc \
    "python lightning_train.py '$OUT/lightning-ddp' --devices 2 --strategy ddp --progress tqdm --epochs 8"

# 9. Lightning, single process, default progress bar (Rich, since rich is installed),
#    captured through a pseudo-terminal with `script` so the live display is rendered
#    (ANSI colours, ESC[2K line clears, CRLF line endings) as a terminal recording would show it
run lightning-rich-progress-pty \
    "COLUMNS=100 LINES=40 script -qfec \"python lightning_train.py '$OUT/lightning-1' --devices 1 --strategy auto --progress default --epochs 6\" /dev/null"

# 10. torch.compile (inductor, CPU/gcc) with recompiles and graph-break logging
run torch-compile-cpu "TORCH_LOGS=recompiles,graph_breaks python compile_train.py"

# 11. DataLoader num_workers=2, persistent workers, worker_init_fn, pin_memory warning
run dataloader-workers-persistent "python dataloader_workers.py"

# 12. checkpoint save/load round trip, torch.load(weights_only=True), exact resume
run checkpoint-save-load-weights-only "python checkpoint_roundtrip.py '$OUT/ckpt'"

echo
echo "captured: ${ok[*]:-none}"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "FAILED: ${failed[*]}"
    exit 1
fi
du -ch "$HERE"/*.log | tail -n 1
