#!/usr/bin/env bash
# bench/gpu_check.sh [--dry-run] [--bundle TARBALL] OUTDIR
#
# The one command for a GPU machine (docs/gpu-check.md): unpacks the bundle (tools/bundle.sh),
# lists the OpenCL devices, builds and verifies every template on a small shape, tunes GEMM
# 1024^3 and 4096^3 and ResNet-18 on the GPU, times cuBLAS SGEMM and cuDNN convolution (float32,
# TF32 off) through PyTorch on the same shapes, and writes OUTDIR/gpu_check.json and
# OUTDIR/gpu_check.md: ratios against cuBLAS and cuDNN, tuning wall clock, trials by status.
# Needs no network. Without NVIDIA's OpenCL it says so and checks what it can (another OpenCL
# device, else the simulated one). Each step has a time limit; the whole stays under 8 minutes.
#
# --dry-run       every step this machine can run: the first OpenCL device (POCL), small budgets,
#                 PyTorch only if it is importable
# --bundle FILE   the tarball (default: the newest dist/tensortune-*.tar.gz of this checkout)
# Budgets can be changed with GEMM_TRIALS, NETWORK_TRIALS, TEMPLATE_TRIALS, STEP_LIMIT_S and
# TOTAL_LIMIT_S (the whole check; steps with no time left are skipped).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"

dry_run=0
bundle=""
while (($#)); do
  case "$1" in
    --dry-run) dry_run=1; shift ;;
    --bundle) bundle="${2:?--bundle needs a tarball}"; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu_check.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
  esac
done
(($# == 1)) || { echo "usage: bench/gpu_check.sh [--dry-run] [--bundle TARBALL] OUTDIR" >&2; exit 2; }
out="$1"
mkdir -p "$out" || { echo "gpu_check.sh: cannot create '$out'" >&2; exit 2; }
out="$(cd "$out" && pwd)"
if [[ -z "$bundle" ]]; then
  bundle=$(ls -t "$repo"/dist/tensortune-*.tar.gz 2>/dev/null | head -n 1)
  [[ -n "$bundle" ]] || { echo "gpu_check.sh: no bundle: run tools/bundle.sh dist first, or pass --bundle" >&2; exit 2; }
fi
[[ -f "$bundle" ]] || { echo "gpu_check.sh: no bundle at '$bundle'" >&2; exit 2; }

python=$(command -v python3 || true)
[[ -n "$python" ]] || { echo "gpu_check.sh: python3 is needed for the summary" >&2; exit 3; }
if ((dry_run)); then
  : "${GEMM_TRIALS:=8}" "${NETWORK_TRIALS:=24}" "${TEMPLATE_TRIALS:=2}" "${STEP_LIMIT_S:=60}" "${TOTAL_LIMIT_S:=900}"
  gemm_shapes="256,256,256"
else
  : "${GEMM_TRIALS:=48}" "${NETWORK_TRIALS:=240}" "${TEMPLATE_TRIALS:=4}" "${STEP_LIMIT_S:=60}" "${TOTAL_LIMIT_S:=470}"
  gemm_shapes="1024,1024,1024 4096,4096,4096"
fi
start=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
steps="$out/steps.jsonl"
: >"$steps"
log="$out/gpu_check.log"
: >"$log"
note() { echo "[$(($(date +%s) - start)) s] $*" | tee -a "$log"; }
deadline=$((start + TOTAL_LIMIT_S))
# step NAME SECONDS COMMAND...: runs one step under a time limit (and within the check's own
# deadline), its output in OUTDIR/NAME.txt, and records its name, exit code and wall seconds.
# A step with no time left is skipped (exit code -1).
step() {
  local name="$1" limit="$2" t0 rc ms left
  shift 2
  left=$((deadline - $(date +%s)))
  if ((left < 15)); then
    printf '{"step": "%s", "rc": -1, "wall_s": 0, "skipped": true}\n' "$name" >>"$steps"
    note "$name: skipped, the check's time is spent"
    return 124
  fi
  ((limit > left - 5)) && limit=$((left - 5))
  t0=$(date +%s%N)
  timeout --kill-after=10 "$limit" "$@" >"$out/$name.txt" 2>&1
  rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  printf '{"step": "%s", "rc": %d, "wall_s": %d.%03d}\n' "$name" "$rc" $((ms / 1000)) $((ms % 1000)) >>"$steps"
  note "$name: exit $rc in $((ms / 1000)) s"
  return $rc
}

note "unpacking $(basename "$bundle")"
tar -C "$work" -xzf "$bundle" || { echo "gpu_check.sh: cannot unpack '$bundle'" >&2; exit 3; }
tt=$(ls -d "$work"/tensortune-*/bin/tensortune | head -n 1)
[[ -x "$tt" ]] || { echo "gpu_check.sh: the bundle has no bin/tensortune" >&2; exit 3; }
export POCL_CACHE_DIR="$work/pocl-cache"
step version 30 "$tt" --version
step devices 60 "$tt" devices
# Where NVIDIA's OpenCL library is, or is not: a finding either way.
timeout 30 find /usr /lib /lib64 /opt -name 'libnvidia-opencl.so*' >"$out/nvidia_opencl_libraries.txt" 2>/dev/null
ls /etc/OpenCL/vendors >"$out/icd_files.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/nvidia_smi.txt" 2>&1
{
  echo "uname: $(uname -a)"
  echo "cores: $(nproc)"
  echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
  echo "OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-}"
  ls -la /usr/local/nvidia/lib64 /etc/OpenCL/vendors 2>&1 | head -n 80
} >"$out/environment.txt"

device=""
if grep -qi nvidia "$out/devices.txt"; then
  device=nvidia
elif grep -qE '^ +0 ' "$out/devices.txt"; then
  device=0
  ((dry_run)) || note "no NVIDIA OpenCL device: checking on device 0 instead"
else
  device=fake
  note "no OpenCL device at all: checking on the simulated device"
fi
note "device: $device"
db="$out/gpu_check.db"
rm -f "$db" "$db-wal" "$db-shm"
# Builders in parallel: a GPU driver compiles on the host's cores.
builders=$(($(nproc) > 8 ? 8 : $(nproc)))
common=(--db "$db" --device "$device" --builders "$builders" --json)

# The vendor libraries' times on the same shapes, where PyTorch and a CUDA device are there;
# before any tuning, so that nothing else runs on the GPU meanwhile.
"$tt" tasks resnet18 --json >"$out/resnet18_tasks.json" 2>"$out/resnet18_tasks.err"
if "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  step baselines 120 "$python" "$here/gpu_baselines.py" --gemm $gemm_shapes --tasks "$out/resnet18_tasks.json" \
    --out "$out/baselines.json"
else
  note "no PyTorch with CUDA here: no cuBLAS or cuDNN times"
fi

# Every template builds and verifies on a small shape.
"$tt" templates >"$out/templates.txt" 2>&1
small_shape() {
  case "$1:$2" in
    gemm:gemm_rows) echo "4,256,256" ;;
    gemm:*) echo "128,128,128" ;;
    conv2d:*) echo "n=1,ci=16,h=14,w=14,co=32,kh=3,kw=3,stride=1,pad=1" ;;
    depthwise_conv2d:*) echo "n=1,c=32,h=14,w=14,kh=3,kw=3,stride=1,pad=1" ;;
    batch_matmul:*) echo "4,64,64,64" ;;
  esac
}
op=""
while read -r first second _; do
  if [[ "$first" == *: && "$first" != --* ]]; then op="${first%:}"; continue; fi
  [[ "$first" == template ]] || continue
  shape=$(small_shape "$op" "$second")
  [[ -n "$shape" ]] || continue
  step "template_${second}" "$((STEP_LIMIT_S / 2))" "$tt" tune --op "$op" --shape "$shape" --template "$second" \
    --tuner random --trials "$TEMPLATE_TRIALS" --timeout 20 "${common[@]}"
  echo "$op $second $shape" >>"$out/template_shapes.txt"
done <"$out/templates.txt"

gemm_limit=$STEP_LIMIT_S
for shape in $gemm_shapes; do
  step "gemm_${shape//,/x}" "$((gemm_limit + 30))" "$tt" tune --op gemm --shape "$shape" --trials "$GEMM_TRIALS" \
    --time-limit "$gemm_limit" --timeout 10 "${common[@]}"
  gemm_limit=$((STEP_LIMIT_S * 3 / 2))
done

network_limit=$((STEP_LIMIT_S * 5 / 2))
step resnet18 "$((network_limit + 30))" "$tt" tune-network resnet18 --trials "$NETWORK_TRIALS" \
  --time-limit "$network_limit" --timeout 10 "${common[@]}"
"$tt" sql "SELECT op, workload, template, device, time_s, gflops FROM best_per_task" --db "$db" --json \
  >"$out/best.json" 2>"$out/best.err"
"$tt" sql "SELECT w.key AS workload, k.name AS template, t.status, count(*) AS trials
           FROM trials t JOIN workloads w ON w.id = t.workload_id JOIN kernel_templates k ON k.id = t.template_id
           GROUP BY 1, 2, 3" --db "$db" --json >"$out/statuses.json" 2>"$out/statuses.err"


"$python" "$here/gpu_check_report.py" --out "$out" --device "$device" --bundle "$(basename "$bundle")" \
  --commit "$(cat "$work"/tensortune-*/share/tensortune/commit 2>/dev/null)" --dry-run "$dry_run"
note "done in $(($(date +%s) - start)) s: $out/gpu_check.md"
