# shellcheck shell=bash
# Sourced by the bench scripts. POCL_AFFINITY=1 pins POCL's worker thread i to core i whatever
# the process's own affinity (taskset): right only when the cores given are 0..threads-1.
# Elsewhere (taskset -c 1) it would put the kernels on core 0, beside whatever runs there, so
# the workers are left to the process's affinity instead. tensortune applies the same rule by
# itself where POCL_AFFINITY is unset (docs/architecture.md, "CPU driver threads"); the scripts
# keep setting it where they time (so that binaries of older commits are timed the same way),
# and where they tune (anytime.sh) set only 0: 1 would pin tensortune's builders too.
pocl_affinity() {  # CPUS THREADS -> 1 or 0
  local cpus=$1 threads=$2
  if [[ "$cpus" == "$(seq -s, 0 $((threads - 1)))" || ("$threads" -gt 1 && "$cpus" == "0-$((threads - 1))") ]]; then
    echo 1
  else
    echo 0
  fi
}
