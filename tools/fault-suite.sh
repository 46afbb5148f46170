#!/usr/bin/env bash
# Fault suite: kills, signals, concurrent writers and damaged databases against a built
# tensortune, with counts printed as a table at the end. Too slow for the test suite; the
# figures go to docs/notebook.md ("Fault suite") and docs/robustness.md (parts 6-11).
#
#   tools/fault-suite.sh            (after building: cmake --build build --target tensortune tensortune-worker)
#
# Repetitions (environment): KILL_RUNS=20 NET_KILLS=4 WORKER_KILLS=5 SIGNAL_RUNS=3 CONC_TRIALS=6;
# PARTS="tuner_kills worker_kills signals concurrency databases readonly full_disk hostile
# network_twice wide_network scale hostile_packs signals_all merge_race" picks parts; SCALE_TRIALS=1000000 sizes the large history of part 10.
# Parts 6 and 7 mount a read-only bind mount and small tmpfs in a private mount namespace
# (root and unshare -m); without them they report "skipped". TENSORTUNE=path.
# Every process it starts is its own child; it kills those by pid only, never by name.
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${TENSORTUNE:-build/bin/tensortune}
if [[ ! -x $BIN || ! -x $(dirname "$BIN")/tensortune-worker ]]; then
  echo "fault-suite: $BIN or its worker is missing; build first:" >&2
  echo "  cmake --build build --target tensortune tensortune-worker" >&2
  exit 2
fi
command -v sqlite3 >/dev/null || { echo "fault-suite: needs the sqlite3 command-line shell" >&2; exit 2; }
BIN=$(realpath "$BIN")
KILL_RUNS=${KILL_RUNS:-20} NET_KILLS=${NET_KILLS:-4} WORKER_KILLS=${WORKER_KILLS:-5}
SIGNAL_RUNS=${SIGNAL_RUNS:-3} CONC_TRIALS=${CONC_TRIALS:-6}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# A private kernel cache: the first measurement of a config compiles it, as for a user.
export POCL_CACHE_DIR=$WORK/pocl-cache

ROWS=()
row() { ROWS+=("| $1 | $2 | $3 | $4 |"); printf '  %-55s %s (expected %s)\n' "$2" "$3" "$4"; }
sql() { sqlite3 -cmd ".timeout 10000" "$1" "$2"; }
now() { date +%s.%N; }
sleep_ms() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }
json_int() { sed -n "s/^  \"$2\": \([0-9-]*\),\{0,1\}\$/\1/p" "$1" | head -1; }
# Rows of one task measured more than once: final (transient = 0) ones, and all of them.
dup_final() { sql "$1" "SELECT count(*) FROM (SELECT 1 FROM trials WHERE transient = 0 GROUP BY workload_id, template_id, device_id, config_key HAVING count(*) > 1)"; }
dup_total() { sql "$1" "SELECT count(*) - count(DISTINCT workload_id || ':' || template_id || ':' || device_id || ':' || config_key) FROM trials"; }
# Of those, rows that measure again a config whose earlier row was an environment failure (by design).
dup_retries() { sql "$1" "SELECT count(*) FROM trials t WHERE EXISTS (SELECT 1 FROM trials e WHERE e.id < t.id AND e.transient = 1
  AND e.workload_id = t.workload_id AND e.template_id = t.template_id AND e.device_id = t.device_id AND e.config_key = t.config_key)"; }
dups_text() { echo "$(dup_final "$1"); $(dup_total "$1") ($(dup_retries "$1") retries of transient failures)"; }
batches() { [[ -f $1 ]] && sql "$1" "SELECT run_id || ':' || batch || ':' || count(*) FROM trials GROUP BY run_id, batch" 2>/dev/null; }


# 1. kill -9 of the tuner at a random moment, then the same command again to completion.
# Every run uses the same seed on a fresh database, after a warm-up run on a scratch database
# has compiled the configs that seed proposes: with POCL's kernel cache warm and --min-time 0.1,
# a run lasts several seconds and a batch commits every second or so, so kills at 0.5-6 s land
# between and within batches, not only before the first one (on a loaded 2-core machine a
# cold compile takes seconds).
part_tuner_kills() {
  echo "1. kill -9 of tune ($KILL_RUNS runs) and of tune-network ($NET_KILLS runs)"
  local kills=0 hit=0 at_kill=0 completions_failed=0 dups=0 dupt=0 retries=0 running=0 stale=0 claims=0 k
  local kill_cmd=(tune --op gemm --shape 64,64,64 --trials 24 --batch-size 4 --min-time 0.1 --seed 1)
  "$BIN" tune --op gemm --shape 64,64,64 --trials 48 --batch-size 4 --min-time 0.005 --seed 1 --db "$WORK/warm-up.db" > /dev/null 2>&1
  : > "$WORK/missing"
  for ((k = 0; k < KILL_RUNS; k++)); do
    local db=$WORK/kill$k.db
    local cmd=("$BIN" "${kill_cmd[@]}" --db "$db")
    "${cmd[@]}" > /dev/null 2>> "$WORK/kill.err" &
    local pid=$!
    sleep_ms $((500 + RANDOM % 5501))
    kill -9 "$pid" 2> /dev/null && hit=$((hit + 1))
    wait "$pid" 2> /dev/null
    kills=$((kills + 1))
    [[ -f $db ]] || continue
    at_kill=$((at_kill + $(sql "$db" "SELECT count(DISTINCT batch) FROM trials")))
    batches "$db" > "$db.at-kill"
    "${cmd[@]}" > /dev/null 2>> "$WORK/kill.err"
    local code=$?
    [[ $code == 0 ]] || { completions_failed=$((completions_failed + 1)); echo "   completion exit $code: $(tail -1 "$WORK/kill.err")"; }
    # Every batch committed before the kill must still be there, unchanged.
    comm -23 <(sort -u "$db.at-kill") <(batches "$db" | sort -u) | sed "s|^|$k:|" >> "$WORK/missing"
    dups=$((dups + $(dup_final "$db"))) dupt=$((dupt + $(dup_total "$db"))) retries=$((retries + $(dup_retries "$db")))
    running=$((running + $(sql "$db" "SELECT count(*) FROM runs WHERE status = 'running'")))
    stale=$((stale + $(sql "$db" "SELECT count(*) FROM runs WHERE status = 'failed' AND error LIKE '%ended without ending it%'")))
    claims=$((claims + $(sql "$db" "SELECT count(*) FROM claims")))
  done
  row 1 "tune runs killed with -9 (random 0.5-6 s)" "$kills ($((kills - hit)) had already finished)" "$KILL_RUNS"
  row 1 "batches committed before the kills (sum)" "$at_kill" "-"
  row 1 "committed batches lost afterwards" "$(wc -l < "$WORK/missing")" 0
  row 1 "completion runs (same command) not exiting 0" "$completions_failed" 0
  row 1 "configs measured twice, final rows (transient = 0)" "$dups" 0
  row 1 "configs measured twice, all rows" "$dupt ($retries retries of transient failures)" "retries only"
  row 1 "claims left after the completion runs" "$claims" 0
  row 1 "runs left 'running' after the completion runs" "$running" 0
  row 1 "killed runs marked failed by the completion run (process gone)" "$stale" "$hit"

  # tune-network on a two-layer user network: killed, then the same command continues.
  cat > "$WORK/tiny.json" << 'EOF'
{"name": "tiny", "layers": [
  {"name": "proj", "op": "gemm", "shape": "{batch*32},32,32", "repeat": 2},
  {"name": "head", "op": "gemm", "shape": "{batch*8},64,32"}]}
EOF
  local budget=24 wrong_total=0 net_dups=0 net_failed=0 net_unfinished=0 net_at_kill=0 net_hit=0 n
  local net=("$BIN" tune-network "$WORK/tiny.json" --trials "$budget" --batch-size 2 --min-time 0.1 --tuner random --seed 1)
  "${net[@]}" --db "$WORK/net-warm-up.db" > /dev/null 2>&1
  for ((n = 0; n < NET_KILLS; n++)); do
    local db=$WORK/net$n.db
    local cmd=("${net[@]}" --db "$db")
    "${cmd[@]}" > /dev/null 2>> "$WORK/net.err" &
    local pid=$!
    sleep_ms $((500 + RANDOM % 5501))
    kill -9 "$pid" 2> /dev/null && net_hit=$((net_hit + 1))
    wait "$pid" 2> /dev/null
    # A network run that had already finished is not continued: the same command starts anew.
    [[ -f $db && $(sql "$db" "SELECT status FROM network_runs" 2> /dev/null) == finished ]] && continue
    [[ -f $db ]] && net_at_kill=$((net_at_kill + $(sql "$db" "SELECT count(*) FROM trials" 2> /dev/null || echo 0)))
    "${cmd[@]}" > /dev/null 2>> "$WORK/net.err"
    local code=$?
    [[ $code == 0 ]] || { net_failed=$((net_failed + 1)); echo "   continuation exit $code: $(tail -1 "$WORK/net.err")"; }
    [[ $(sql "$db" "SELECT count(*) FROM trials") == "$budget" ]] || wrong_total=$((wrong_total + 1))
    net_dups=$((net_dups + $(dup_total "$db") - $(dup_retries "$db")))
    [[ $(sql "$db" "SELECT count(*) || status FROM network_runs") == 1finished ]] || net_unfinished=$((net_unfinished + 1))
  done
  row 1 "tune-network runs killed with -9 (random 0.5-6 s), then continued" "$net_hit of $NET_KILLS killed mid-run (trials at the kills: $net_at_kill)" "$NET_KILLS"
  row 1 "continuations not exiting 0" "$net_failed" 0
  row 1 "networks whose trials != budget ($budget)" "$wrong_total" 0
  row 1 "tune-network configs measured twice (retries of transient failures aside)" "$net_dups" 0
  row 1 "network runs not one 'finished' row" "$net_unfinished" 0
}

# 2. kill -9 of the worker (the tuner's own child) while a tune runs.
part_worker_kills() {
  echo "2. kill -9 of the worker ($WORKER_KILLS runs)"
  local db=$WORK/worker.db sent=0 failed_runs=0 i
  local cmd=("$BIN" tune --op gemm --shape 64,64,64 --trials 4 --batch-size 2 --min-time 0.005 --seed 7 --db "$db")
  for ((i = 0; i < WORKER_KILLS; i++)); do
    "${cmd[@]}" > /dev/null 2>> "$WORK/worker.err" &
    local pid=$! wpid="" until=$((SECONDS + 8))
    sleep_ms $((1000 + RANDOM % 2001))
    while [[ -z $wpid && $SECONDS -lt $until ]] && kill -0 "$pid" 2> /dev/null; do
      wpid=$(pgrep -P "$pid" | head -1)
      [[ -z $wpid ]] && sleep 0.1
    done
    [[ -n $wpid ]] && kill -9 "$wpid" && sent=$((sent + 1))
    wait "$pid"
    local code=$?
    [[ $code == 0 ]] || { failed_runs=$((failed_runs + 1)); echo "   tune exit $code: $(tail -1 "$WORK/worker.err")"; }
  done
  "${cmd[@]}" > /dev/null 2>> "$WORK/worker.err" || failed_runs=$((failed_runs + 1))  # measures the last one again
  local killed="error LIKE '%signal 9%'"
  row 2 "worker kills sent (pid of the tuner's child)" "$sent" "$WORKER_KILLS"
  row 2 "trials whose error names signal 9" "$(sql "$db" "SELECT count(*) FROM trials WHERE $killed")" "$sent"
  row 2 "... of them not marked transient" "$(sql "$db" "SELECT count(*) FROM trials WHERE $killed AND transient = 0")" 0
  row 2 "... of them not measured again by a later run" "$(sql "$db" "SELECT count(*) FROM trials t WHERE $killed AND NOT EXISTS
      (SELECT 1 FROM trials u WHERE u.config_key = t.config_key AND u.run_id > t.run_id AND u.transient = 0)")" 0
  row 2 "tune runs not exiting 0" "$failed_runs" 0
  row 2 "runs not 'finished'" "$(sql "$db" "SELECT count(*) FROM runs WHERE status != 'finished'")" 0
}

# 3. SIGINT and SIGTERM while a batch of 512^3 GEMM with --min-time 2 is measured.
part_signals() {
  echo "3. SIGINT and SIGTERM ($SIGNAL_RUNS runs each)"
  local sig r
  set -m  # background jobs of a script ignore SIGINT unless job control is on
  for sig in INT TERM; do
    local slowest=0 codes="" mismatch=0 claims=0 kept=0 statuses=""
    for ((r = 0; r < SIGNAL_RUNS; r++)); do
      local db=$WORK/sig$sig$r.db out=$WORK/sig$sig$r.json
      "$BIN" tune --op gemm --shape 512,512,512 --trials 16 --min-time 2 --seed $((r + 1)) --json --db "$db" \
        > "$out" 2> "$WORK/sig$sig$r.err" &
      local pid=$!
      sleep_ms $((10000 + RANDOM % 6001))  # a few configs of the first batch done
      local t0; t0=$(now)
      kill -s "$sig" "$pid"
      wait "$pid"
      local code=$? t1; t1=$(now)
      slowest=$(awk -v a="$t0" -v b="$t1" -v m="$slowest" 'BEGIN { d = b - a; print (d > m ? d : m) }')
      codes+="$code "
      local reported in_db; reported=$(json_int "$out" trials) in_db=$(sql "$db" "SELECT count(*) FROM trials")
      [[ $reported == "$in_db" ]] || mismatch=$((mismatch + 1))
      kept=$((kept + in_db))
      claims=$((claims + $(sql "$db" "SELECT count(*) FROM claims")))
      statuses+="$(sql "$db" "SELECT status FROM runs") "
    done
    row 3 "SIG$sig: slowest signal-to-exit (s)" "$(printf '%.2f' "$slowest")" "< 2"
    row 3 "SIG$sig: exit codes" "${codes% }" 130
    row 3 "SIG$sig: runs whose DB trials != reported trials" "$mismatch (trials kept: $kept)" 0
    row 3 "SIG$sig: claims left" "$claims" 0
    row 3 "SIG$sig: run statuses" "${statuses% }" interrupted
  done
  set +m
}

# 4. Concurrent tune processes on one database, plus readers.
part_concurrency() {
  echo "4. concurrent tune processes ($CONC_TRIALS trials each) with readers"
  local shapes=(64,64,64 64,64,32 64,32,64 32,64,64) n mode
  for n in 2 4; do
    for mode in same-seed seeds tasks; do
      local db=$WORK/conc$n$mode.db pids=() p lost=0 lockerr=0 failed=0
      : > "$WORK/reader.err"; : > "$WORK/reader-timeout.err"
      for ((p = 0; p < n; p++)); do
        local shape=64,64,64 seed=11
        [[ $mode == seeds ]] && seed=$((20 + p))
        [[ $mode == tasks ]] && shape=${shapes[p]}
        "$BIN" tune --op gemm --shape $shape --trials "$CONC_TRIALS" --batch-size 2 --min-time 0.005 --seed $seed \
          --json --db "$db" > "$WORK/c$p.json" 2> "$WORK/c$p.err" &
        pids+=($!)
      done
      # Readers while they run: the sqlite3 shell as a user types it (no busy timeout), the same
      # with a busy timeout as a program would set one, and tensortune's compare.
      (
        reads=0 errors=0
        alive() { local q; for q in "${pids[@]}"; do kill -0 "$q" 2> /dev/null && return 0; done; return 1; }
        while alive; do
          if [[ -s $db ]]; then
            sqlite3 "$db" "SELECT count(*) FROM trials" > /dev/null 2>> "$WORK/reader.err" || errors=$((errors + 1))
            sqlite3 -cmd ".timeout 5000" "$db" "SELECT count(*) FROM trials" > /dev/null 2>> "$WORK/reader-timeout.err" ||
              errors=$((errors + 1))
            "$BIN" compare --op gemm --shape 64,64,64 --db "$db" --tuners random --seeds 1 --trials 2 --batch-size 1 \
              > /dev/null 2>> "$WORK/reader.err"
            code=$?  # 2: nothing recorded yet for that workload
            [[ $code == 0 || $code == 2 ]] || errors=$((errors + 1))
            reads=$((reads + 3))
          fi
          sleep 0.2
        done
        echo "$reads $errors" > "$WORK/reader.count"
      ) &
      local reader=$!
      for ((p = 0; p < n; p++)); do
        wait "${pids[p]}"
        local code=$?
        [[ $code == 0 ]] && continue
        failed=$((failed + 1))
        echo "   $n x $mode: tune $p exit $code: $(tail -1 "$WORK/c$p.err")"
      done
      wait "$reader"
      sort "$WORK/reader.err" | uniq -c | sed "s/^/   $n x $mode reader: /"
      for ((p = 0; p < n; p++)); do
        local run reported rows
        run=$(json_int "$WORK/c$p.json" run_id) reported=$(json_int "$WORK/c$p.json" trials)
        rows=$(sql "$db" "SELECT count(*) FROM trials WHERE run_id = '${run:-0}'")
        [[ -n $reported && $reported == "$rows" ]] || lost=$((lost + ${reported:-0} - rows))
        lockerr=$((lockerr + $(grep -ci -e locked -e busy "$WORK/c$p.err")))
      done
      local reads rerrs; read -r reads rerrs < "$WORK/reader.count"
      local rlocked tlocked
      rlocked=$(grep -ci -e locked -e busy "$WORK/reader.err") tlocked=$(grep -ci -e locked -e busy "$WORK/reader-timeout.err")
      row 4 "$n x tune, $mode: rows lost (reported - recorded)" "$lost" 0
      row 4 "$n x tune, $mode: processes not exiting 0; lock errors" "$failed; $lockerr" "0; 0"
      row 4 "$n x tune, $mode: reads; failed; locked (sqlite3 without; with .timeout)" "$reads; $rerrs; $rlocked; $tlocked" "-; -; -; 0"
      row 4 "$n x tune, $mode: configs twice (final; all rows)" "$(dups_text "$db")" "0; retries only"
    done
  done
}

# 5. Damaged and foreign databases: exit 2, the file byte-for-byte unchanged, nothing beside it.
part_databases() {
  echo "5. unusable database files"
  local good=$WORK/good.db
  if ! "$BIN" tune --op gemm --shape 64,64,64 --trials 4 --batch-size 4 --min-time 0.005 --db "$good" > /dev/null; then
    row 5 "a good database to damage" "tune failed" "created"
    return
  fi
  # Grow it past 20 pages with copies of its trials (transient, so the unique index allows them).
  local i
  for i in $(seq 1 100); do
    sql "$good" "INSERT INTO trials (run_id, workload_id, template_id, device_id, config_key, config_json, status, error,
      times_json, time_s, gflops, compile_s, batch, started_at, finished_at, transient)
      SELECT run_id, workload_id, template_id, device_id, config_key || '#$i', config_json, status, error, times_json,
      time_s, gflops, compile_s, batch, started_at, finished_at, 1 FROM trials WHERE config_key NOT LIKE '%#%'"
  done
  sql "$good" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null
  local size; size=$(stat -c %s "$good")
  local name refused=0 total=0
  for name in truncated-inside-last-page truncated-by-3-pages interior-pages-overwritten foreign newer-version \
      not-a-database; do
    local dir=$WORK/db-$name
    local db=$dir/history.db
    mkdir -p "$dir"
    case $name in
      truncated-inside-last-page) cp "$good" "$db"; truncate -s $((size - 1000)) "$db" ;;
      truncated-by-3-pages) cp "$good" "$db"; truncate -s $((size - 3 * 4096)) "$db" ;;
      interior-pages-overwritten)
        cp "$good" "$db"
        head -c $((size / 3)) /dev/zero | tr '\0' '\245' | dd of="$db" bs=4096 seek=$((size / 3 / 4096)) conv=notrunc status=none ;;
      foreign) sqlite3 "$db" "CREATE TABLE t(x); INSERT INTO t VALUES (1);" ;;
      newer-version) cp "$good" "$db"; sqlite3 "$db" "PRAGMA user_version = 999" ;;
      not-a-database) echo "my notes, not a database" > "$db" ;;
    esac
    local sum_before files_before c codes="" unchanged=yes
    sum_before=$(sha256sum < "$db") files_before=$(ls "$dir")
    for c in tune sweep; do
      local extra=(--trials 1); [[ $c == sweep ]] && extra=(--limit 1)
      "$BIN" $c --op gemm --shape 8,8,8 "${extra[@]}" --min-time 0.01 --db "$db" > /dev/null 2> "$WORK/db.err"
      local code=$?
      codes+="$code "
      total=$((total + 1))
      [[ $(sha256sum < "$db") == "$sum_before" && $(ls "$dir") == "$files_before" ]] || unchanged=no
      [[ $code == 2 && $unchanged == yes && $(wc -l < "$WORK/db.err") == 1 ]] && refused=$((refused + 1))
    done
    row 5 "$name: exit codes (tune, sweep); file and folder unchanged" "${codes% }; $unchanged" "2 2; yes"
  done
  row 5 "refused with exit 2, one line, sha256 unchanged" "$refused of $total" "$total of $total"
}

# Runs a command in a private mount namespace after a setup script (mounts).
in_mounts() { local setup=$1; shift; unshare -m sh -c "$setup && exec \"\$0\" \"\$@\"" "$@"; }
can_mount() { [[ $(id -u) == 0 ]] && unshare -m true 2> /dev/null; }
elapsed() { local t0=$1; awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# "seconds peak-KiB" of a command (GNU time), its output discarded.
measure() { /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" > /dev/null 2>> "$WORK/measure.err"; local c=$?; echo "$(cat "$WORK/time.txt" | tail -1) $c"; }
synthetic() { bench/large_history.sh "$1" "$2" "${3:-20}" "${4:-4}" > /dev/null; }
readers() {  # the commands that only read a history, as shell command lines
  local db=$1 out=$2
  echo "\"$BIN\" sql --db $db 'SELECT * FROM best_per_task'"
  echo "\"$BIN\" sql --db $db --csv 'SELECT * FROM convergence'"
  echo "\"$BIN\" report --db $db --out $out/report.html"
  echo "\"$BIN\" export --db $db --format csv --out $out/trials.csv"
  echo "\"$BIN\" export --db $db --format t4"
  echo "\"$BIN\" sql --db $db --json 'SELECT * FROM runs_view'"
}

# 6. Readers on a read-only file system (a read-only bind mount of the history's folder).
part_readonly() {
  echo "6. readers on a read-only file system"
  if ! can_mount; then row 6 "read-only bind mount" "skipped (needs root and unshare -m)" "-"; return; fi
  local dir=$WORK/ro out=$WORK/ro-out ok=0 total=0 line
  mkdir -p "$dir" "$out"
  synthetic "$dir/h.db" 20000
  local sum; sum=$(sha256sum < "$dir/h.db")
  while read -r line; do
    in_mounts "mount --bind $dir $dir && mount -o remount,ro,bind $dir" sh -c "$line" > /dev/null 2>> "$WORK/ro.err"
    [[ $? == 0 ]] && ok=$((ok + 1))
    total=$((total + 1))
  done < <(readers "$dir/h.db" "$out")
  row 6 "sql (3 views), report, export (csv, t4) on a read-only mount: exit 0" "$ok of $total" "$total of $total"
  row 6 "history file and folder after them" "$([[ $(sha256sum < "$dir/h.db") == "$sum" && $(ls "$dir") == h.db ]] && echo unchanged || echo changed)" unchanged
}

# 7. A disk that fills: under a run (tune, tune-network) and under --out.
part_full_disk() {
  echo "7. full disk (small tmpfs)"
  if ! can_mount; then row 7 "small tmpfs" "skipped (needs root and unshare -m)" "-"; return; fi
  local mnt=$WORK/full size
  mkdir -p "$mnt"
  cat > "$WORK/tiny-full.json" << 'EOF'
{"name": "tiny", "layers": [
  {"name": "proj", "op": "gemm", "shape": "{batch*32},32,32", "repeat": 2},
  {"name": "head", "op": "gemm", "shape": "{batch*8},64,32"}]}
EOF
  for size in 300k 360k 700k; do
    in_mounts "mount -t tmpfs -o size=$size tmpfs $mnt" sh -c "\"$BIN\" tune --op gemm --shape 32,32,32 --trials 60 --min-time 0.001 --batch-size 2 --db $mnt/t.db > /dev/null 2> $WORK/full-tune.err; echo \$? > $WORK/full-tune.code; sqlite3 $mnt/t.db 'SELECT status FROM runs' > $WORK/full-tune.status; rm -f $mnt/t.db*; \"$BIN\" tune-network $WORK/tiny-full.json --trials 80 --min-time 0.001 --batch-size 2 --tuner random --db $mnt/n.db > /dev/null 2> $WORK/full-net.err; echo \$? > $WORK/full-net.code; sqlite3 $mnt/n.db 'SELECT status FROM network_runs' > $WORK/full-net.status"
    row 7 "tune on a $size tmpfs: exit; runs.status" "$(cat "$WORK/full-tune.code"); $(tr '\n' ' ' < "$WORK/full-tune.status")" "3; failed"
    row 7 "tune-network on a $size tmpfs: exit; network_runs.status" "$(cat "$WORK/full-net.code"); $(tr '\n' ' ' < "$WORK/full-net.status")" "3; failed"
  done
  synthetic "$WORK/full-src.db" 20000
  in_mounts "mount -t tmpfs -o size=64k tmpfs $mnt" sh -c "\"$BIN\" export --db $WORK/full-src.db --format csv --out $mnt/out.csv 2> $WORK/full-out.err; echo \$? > $WORK/full-out.code; ls -A $mnt | wc -l > $WORK/full-out.files"
  row 7 "export --out on a full 64k tmpfs: exit; files left; message" "$(cat "$WORK/full-out.code"); $(cat "$WORK/full-out.files"); $(sed 's/.*: //' "$WORK/full-out.err")" "3; 0; No space left on device"
}

# 8. Hostile databases: planted objects refused (exit 2, file unchanged) by every command.
part_hostile() {
  echo "8. hostile databases"
  local plant name refused=0 total=0 unchanged=0
  declare -A plants=(
    [trigger]="CREATE TRIGGER wipe AFTER INSERT ON trials BEGIN DELETE FROM runs; UPDATE devices SET name = 'x'; END"
    [view-for-table]="ALTER TABLE trials RENAME TO t2; CREATE VIEW trials AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT * FROM t2, c"
    [virtual-table]="CREATE VIRTUAL TABLE ft USING fts3(x)"
    [unique-index]="CREATE UNIQUE INDEX u ON trials (run_id, config_key)"
    [version-minus-1]="PRAGMA journal_mode = DELETE; PRAGMA user_version = -1"
    [version-0]="PRAGMA journal_mode = DELETE; PRAGMA user_version = 0")
  for name in "${!plants[@]}"; do
    local db=$WORK/hostile-$name.db
    synthetic "$db" 2000 5 2
    sqlite3 "$db" "${plants[$name]}" > /dev/null
    local sum; sum=$(sha256sum < "$db")
    local c codes=""
    for c in "tune --op gemm --shape 8,8,8 --trials 1 --min-time 0.01 --db $db" "merge $db --into $WORK/hostile-into.db" \
        "report --db $db --out $WORK/h.html" "sql --db $db SELECT 1" "export --db $db"; do
      "$BIN" $c > /dev/null 2> "$WORK/hostile.err"
      local code=$?
      codes+="$code "
      total=$((total + 1))
      [[ $code == 2 && $(wc -l < "$WORK/hostile.err") == 1 ]] && refused=$((refused + 1))
      [[ $(sha256sum < "$db") == "$sum" ]] && unchanged=$((unchanged + 1))
    done
    row 8 "$name: exit codes (tune, merge, report, sql, export)" "${codes% }" "2 2 2 2 2"
  done
  row 8 "refused with exit 2 and one line; file unchanged" "$refused; $unchanged of $total" "$total; $total of $total"
  local db=$WORK/hostile-values.db
  synthetic "$db" 2000 5 2
  sqlite3 "$db" "UPDATE trials SET gflops = 1.7e308 WHERE id = 1; UPDATE trials SET gflops = 9e999 WHERE id = 2"
  local t0; t0=$(now)
  timeout 60 "$BIN" report --db "$db" --out "$WORK/values.html" > /dev/null 2>&1
  row 8 "report with GFLOPS 1.7e308 and inf: exit; seconds" "$?; $(elapsed "$t0")" "0; < 5"
  "$BIN" sql --db "$db" "SELECT hex(fts3_tokenizer('simple'))" > "$WORK/fts.out" 2> "$WORK/fts.err"
  row 8 "sql fts3_tokenizer('simple'): exit; address printed" "$?; $(wc -c < "$WORK/fts.out") bytes" "2; 0 bytes"
  "$BIN" sql --db "$db" "SELECT fts3_tokenizer('simple', x'4141414141414141')" > /dev/null 2>&1
  row 8 "sql fts3_tokenizer('simple', pointer): exit" "$?" 2
}

# 9. Two identical tune-network commands at once.
part_network_twice() {
  echo "9. two identical tune-network commands at once"
  cat > "$WORK/twice.json" << 'EOF'
{"name": "twice", "layers": [
  {"name": "proj", "op": "gemm", "shape": "{batch*32},32,32", "repeat": 2},
  {"name": "head", "op": "gemm", "shape": "{batch*8},64,32"}]}
EOF
  local db=$WORK/twice.db cmd=("$BIN" tune-network "$WORK/twice.json" --trials 24 --batch-size 2 --min-time 0.05 --tuner random --seed 3)
  "${cmd[@]}" --db "$db" > /dev/null 2> "$WORK/twice1.err" &
  local a=$!
  "${cmd[@]}" --db "$db" > /dev/null 2> "$WORK/twice2.err" &
  local b=$!
  wait $a; local ca=$?
  wait $b; local cb=$?
  row 9 "exit codes of the two" "$ca $cb" "0 3 (either order)"
  row 9 "network runs; trials in them (budget 24)" "$(sql "$db" "SELECT count(*) FROM network_runs"); $(sql "$db" "SELECT count(*) FROM trials")" "1; 24"
  row 9 "the refused one's message" "$(cat "$WORK/twice1.err" "$WORK/twice2.err" | grep -o 'is being tuned by process [0-9]*' | sed 's/[0-9]*$/N/')" "is being tuned by process N"
  "${cmd[@]}" --db "$db" > /dev/null 2>&1
  row 9 "the same command afterwards: exit" "$?" 0
}

# 11. A network file at the bounds: 500 distinct layers; one more is refused; SIGTERM stays prompt.
part_wide_network() {
  echo "11. network files at the bounds"
  local n
  for n in 500 501; do
    awk -v n=$n 'BEGIN { printf "{\"name\": \"wide\", \"layers\": ["; for (i = 0; i < n; i++) printf "%s{\"op\": \"gemm\", \"shape\": \"%d,16,16\"}", (i ? "," : ""), 8 + i; print "]}" }' > "$WORK/wide$n.json"
    row 11 "tasks on $n distinct layers: s, KiB, exit" "$(measure "$BIN" tasks "$WORK/wide$n.json")" "$([[ $n == 500 ]] && echo 'exit 0' || echo 'exit 2')"
  done
  local d
  for d in 1 3 8; do
    "$BIN" tune-network "$WORK/wide500.json" --trials 2000 --min-time 0.001 --tuner random --db "$WORK/wide$d.db" > /dev/null 2>&1 &
    local pid=$!
    sleep "$d"
    local t0; t0=$(now)
    kill -TERM "$pid"
    wait "$pid"
    row 11 "tune-network on 500 tasks, SIGTERM after $d s: exit; seconds to exit" "$?; $(elapsed "$t0")" "130; < 2"
  done
}

# 10. A large history (bench/large_history.sh): views, merge, export and report.
part_scale() {
  local n=${SCALE_TRIALS:-1000000}
  echo "10. a history of $n trials"
  local db=$WORK/large.db t0
  t0=$(now)
  bench/large_history.sh "$db" "$n" > /dev/null
  row 10 "generated with SQL inserts (s)" "$(elapsed "$t0")" "-"
  "$BIN" sql --write --db "$db" "SELECT 1" > /dev/null  # migrated once, as any command would
  local view
  for view in best_per_task runs_view convergence tuner_comparison trials_view; do
    row 10 "sql SELECT count(*) FROM $view: s, KiB, exit" "$(measure "$BIN" sql --db "$db" "SELECT count(*) FROM $view")" "< 5"
    row 10 "sql --csv SELECT * FROM $view: s, KiB, exit" "$(measure "$BIN" sql --csv --db "$db" "SELECT * FROM $view")" "-"
  done
  local m; m=$(measure "$BIN" merge "$db" --into "$WORK/merged.db")
  row 10 "merge into an empty database: s, KiB, exit" "$m" "-"
  row 10 "merge rate (trials/s)" "$(awk -v n="$(sql "$WORK/merged.db" "SELECT count(*) FROM trials")" -v s="${m%% *}" 'BEGIN { printf "%d", n / s }')" "> 50000"
  row 10 "merge again (all present): s, KiB, exit" "$(measure "$BIN" merge "$db" --into "$WORK/merged.db")" "-"
  row 10 "export --format csv: s, peak KiB, exit" "$(measure "$BIN" export --db "$db" --format csv --out "$WORK/large.csv")" "bounded"
  row 10 "export --format json (stdout): s, peak KiB, exit" "$(measure "$BIN" export --db "$db" --format json)" "bounded"
  row 10 "report: s, peak KiB, exit" "$(measure "$BIN" report --db "$db" --out "$WORK/large.html")" "bounded"
}

# 12. Hostile kernel packs: forged and re-hashed manifests, edited and re-hashed sources,
# files that are FIFOs, devices, links out of the pack, and a 300 MB manifest.
rehash_pack() {  # recomputes every source hash and the checksum, as a forger would
  python3 - "$1" <<'PY'
import json, sys
def fnv(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h
d = sys.argv[1]
m = json.load(open(d + "/manifest.json"))
for t in m["tasks"]:
    t["source_hash"] = fnv(open(d + "/" + t["source_file"], "rb").read())
m.pop("checksum", None)
m["checksum"] = fnv(json.dumps(m, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())
json.dump(m, open(d + "/manifest.json", "w"), indent=2)
PY
}
part_hostile_packs() {
  echo "12. hostile kernel packs"
  local net=$WORK/pack-net.json db=$WORK/pack.db
  echo '{"name": "two", "layers": [{"op": "gemm", "shape": "64,64,64"}, {"op": "gemm", "shape": "32,64,48"}]}' > "$net"
  "$BIN" tune-network "$net" --trials 8 --min-time 0.005 --db "$db" > /dev/null 2>&1
  "$BIN" export-kernels "$net" --db "$db" --out "$WORK/pack" > /dev/null 2>&1 || { row 12 "export-kernels" "failed" 0; return; }
  run_pack() { timeout 60 "$BIN" run-network "$net" --pack "$1" --min-time 0 --min-runs 1 "${@:2}" > /dev/null 2> "$WORK/pack.err"; }
  run_pack "$WORK/pack"; row 12 "the pack as exported: exit" "$?" 0
  local p=$WORK/pack-unknown
  cp -r "$WORK/pack" "$p"
  python3 -c "import json,sys; m=json.load(open(sys.argv[1])); t=m['tasks'][0]; t['template']='no_such_sketch'; [a.update(elements=1) for a in t['arguments'] if a['output']]; json.dump(m, open(sys.argv[1],'w'))" "$p/manifest.json"
  rehash_pack "$p"
  run_pack "$p"; row 12 "unknown sketch, output elements 1, re-hashed: exit" "$? ($(grep -c 'does not have' "$WORK/pack.err") says why)" "2 (1)"
  p=$WORK/pack-elements; cp -r "$WORK/pack" "$p"
  python3 -c "import json,sys; m=json.load(open(sys.argv[1])); [a.update(elements=1) for a in m['tasks'][0]['arguments'] if a['output']]; json.dump(m, open(sys.argv[1],'w'))" "$p/manifest.json"
  rehash_pack "$p"
  run_pack "$p"; row 12 "output elements 1 on a known sketch, re-hashed: exit" "$?" 2
  p=$WORK/pack-edited; cp -r "$WORK/pack" "$p"
  local kernel; kernel=$(ls "$p"/kernels/*.cl | head -1)
  printf '\n// edited after export\n' >> "$kernel"
  rehash_pack "$p"
  run_pack "$p"; row 12 "kernel source edited and re-hashed: exit" "$?" 2
  run_pack "$p" --trust-pack-source; row 12 "the same with --trust-pack-source: exit" "$?" 0
  local t0
  p=$WORK/pack-fifo; cp -r "$WORK/pack" "$p"; rm "$p/manifest.json"; mkfifo "$p/manifest.json"
  t0=$(now); run_pack "$p"; row 12 "manifest.json a FIFO: exit; seconds" "$?; $(elapsed "$t0")" "2; < 5"
  p=$WORK/pack-zero; cp -r "$WORK/pack" "$p"; kernel=$(ls "$p"/kernels/*.cl | head -1); rm "$kernel"; ln -s /dev/zero "$kernel"
  row 12 "a kernel file linked to /dev/zero: s, KiB, exit" "$(measure timeout 60 "$BIN" run-network "$net" --pack "$p" --min-time 0)" "exit 2, bounded"
  p=$WORK/pack-out; cp -r "$WORK/pack" "$p"; kernel=$(ls "$p"/kernels/*.cl | head -1); mv "$kernel" "$WORK/outside.cl"; ln -s "$WORK/outside.cl" "$kernel"
  run_pack "$p"; row 12 "a kernel file linked out of the pack: exit" "$?" 2
  p=$WORK/pack-huge; cp -r "$WORK/pack" "$p"; truncate -s 300M "$p/manifest.json"
  row 12 "a 300 MB manifest: s, KiB, exit" "$(measure timeout 60 "$BIN" run-network "$net" --pack "$p" --min-time 0)" "exit 2, bounded"
}

# 13. SIGTERM, SIGINT and SIGHUP in every command: exit 130 (or 0 when it finished first),
# no temporary left beside an output.
part_signals_all() {
  echo "13. signals in every command ($SIGNAL_RUNS runs per command and signal)"
  local src=$WORK/sig-src.db net=$WORK/sig-net.json fifo=$WORK/sig.fifo
  echo '{"name": "one", "layers": [{"op": "gemm", "shape": "64,64,64"}]}' > "$net"
  "$BIN" tune-network "$net" --trials 8 --min-time 0.005 --db "$src" > /dev/null 2>&1
  synthetic "$WORK/sig-big.db" 200000
  rm -f "$fifo"; mkfifo "$fifo"
  local -A cmds=(
    [sql]="\"$BIN\" sql --db $src \"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c\""
    [import]="\"$BIN\" import tests/data/tophub/cuda_v0.10.log.gz tests/data/tophub/opencl_v0.04.log.gz --db $WORK/sig-import.db"
    [export]="\"$BIN\" export --db $src --format csv --out $fifo"
    [report]="\"$BIN\" report --db $src --out $fifo"
    [merge]="\"$BIN\" merge $WORK/sig-big.db --into $WORK/sig-merged.db"
    [run-network]="\"$BIN\" run-network $net --db $src --min-time 30"
    [export-kernels]="\"$BIN\" export-kernels $net --db $src --out $WORK/sig-pack"
  )
  local name sig r
  set -m
  for name in sql import export report merge run-network export-kernels; do
    local codes=""
    for sig in TERM INT HUP; do
      for ((r = 0; r < SIGNAL_RUNS; r++)); do
        rm -rf "$WORK/sig-import.db" "$WORK/sig-merged.db"* "$WORK/sig-pack"
        eval "exec ${cmds[$name]}" > /dev/null 2>&1 &  # exec: $! is tensortune itself
        local pid=$! waited=0
        sleep_ms $((200 + RANDOM % 800))
        kill -s "$sig" "$pid" 2>/dev/null
        while kill -0 "$pid" 2>/dev/null && ((waited < 100)); do sleep 0.1; waited=$((waited + 1)); done
        if kill -0 "$pid" 2>/dev/null; then
          kill -KILL "$pid"; wait "$pid"; codes+="hung,"
        else
          wait "$pid"; codes+="$?,"
        fi
      done
      codes="${codes%,} "
    done
    local left; left=$(find "$WORK" -maxdepth 1 -name '*partial*' | wc -l)
    row 13 "$name: exit codes (TERM INT HUP); partial files left" "${codes% }; $left" "130 (or 0 when done first); 0"
  done
  set +m
}

# 14. tune racing merge into the same database.
part_merge_race() {
  echo "14. tune racing merge ($CONC_TRIALS rounds)"
  local src=$WORK/race-src.db r fails=0 codes="" dups=0 statuses=""
  "$BIN" tune --op gemm --shape 64,64,64 --trials 64 --batch-size 4 --min-time 0.005 --seed 2 --db "$src" > /dev/null 2>&1
  for ((r = 0; r < CONC_TRIALS; r++)); do
    local db=$WORK/race$r.db
    "$BIN" tune --op gemm --shape 64,64,64 --trials 64 --batch-size 4 --min-time 0.005 --seed $((r + 3)) --db "$db" > /dev/null 2> "$WORK/race$r.err" &
    local pid=$! m
    for m in 1 2 3 4 5 6; do
      sleep_ms $((100 + RANDOM % 400))
      "$BIN" merge "$src" --into "$db" > /dev/null 2>&1 || fails=$((fails + 1))
    done
    wait "$pid"
    codes+="$? "
    dups=$((dups + $(dup_final "$db")))
    statuses+="$(sql "$db" "SELECT group_concat(status) FROM runs WHERE seed = $((r + 3))") "
  done
  row 14 "tune exit codes" "${codes% }" 0
  row 14 "merges that failed" "$fails" 0
  row 14 "final records of one config twice" "$dups" 0
  row 14 "the tunes' run statuses" "${statuses% }" finished
}

START=$SECONDS
for part in ${PARTS:-tuner_kills worker_kills signals concurrency databases readonly full_disk hostile network_twice wide_network scale hostile_packs signals_all merge_race}; do
  s=$SECONDS
  "part_$part"
  echo "   ($part: $((SECONDS - s)) s)"
done
echo
echo "| part | measure | value | expected |"
echo "|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
echo "fault suite: $((SECONDS - START)) s; $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg)"
