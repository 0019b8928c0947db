#!/bin/bash
# timeout: 300
# The Slurm driver (scripts/cts-slurm.sh) for real: a single-node Slurm
# cluster of this machine (munged, slurmctld and slurmd as root from a
# temporary slurm.conf and munge key, on ports of its own), a job array of
# 3 shards of a dfs search and a dependent merge job; the merged report
# equals the single-process search. Every daemon is stopped at the end. Where
# the cluster cannot start here (not root, no slurm-wlm or munge, the node
# never comes up) the test says "skipped" with the reason.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "not root (slurmctld, slurmd and munged run as root here)"
for b in munged slurmctld slurmd sbatch squeue scontrol; do
	PATH=$PATH:/usr/sbin command -v $b >/dev/null || skip_all "$b not installed (slurm-wlm, munge)"
done
PATH=$PATH:/usr/sbin
S=$T/slurm
mkdir -p "$S/state" "$S/spool" "$S/munge" && chmod 700 "$S/munge"
pids=()
stop_daemons() {
	# Jobs still running (a failed check) leave slurmstepd daemons behind
	# the slurmd that started them: cancel them on this cluster first.
	if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ]; then
		timeout 10 scancel --quiet --full --user=root 2>/dev/null
		for _ in $(seq 30); do
			[ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.2
		done
	fi
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
at_exit stop_daemons

# munge with a key and socket of its own.
head -c 1024 /dev/urandom > "$S/munge/key" && chmod 400 "$S/munge/key"
munged -F -f --key-file="$S/munge/key" -S "$S/munge/sock" --pid-file="$S/munge/pid" \
	--log-file="$S/munge/log" --seed-file="$S/munge/seed" >"$S/munge/out" 2>&1 &
pids+=($!)
port=$(( 20000 + $$ % 20000 ))
host=$(hostname -s)
cat > "$S/slurm.conf" <<CONF
ClusterName=ctstest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/sock
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=ctsq Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$S/slurm.conf
for _ in $(seq 50); do [ -S "$S/munge/sock" ] && break; sleep 0.1; done
[ -S "$S/munge/sock" ] || skip_all "munged did not start: $(tail -n 1 "$S/munge/log" 2>/dev/null)"
slurmctld -D -i -f "$S/slurm.conf" >"$S/ctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$S/slurm.conf" >"$S/d.out" 2>&1 &
pids+=($!)
up=""
for _ in $(seq 150); do
	st=$(sinfo -h -n "$host" -o %t 2>/dev/null)
	case "$st" in idle*|mix*|alloc*) up=1; break ;; esac
	sleep 0.2  # waiting for the daemons to come up
done
[ -n "$up" ] || skip_all "the Slurm node did not come up (state '${st:-none}'): $(tail -n 1 "$S/slurmctld.log" "$S/slurmd.log" 2>/dev/null | tr '\n' ' ' | cut -c1-200)"
plan 7

"$CTS" -q -m sync -s dfs --report one.json -o out -- "$PROG/lost_wakeup_ok"
ids=$(CTS="$CTS" "$TOP/scripts/cts-slurm.sh" 3 "$T/sl" -m sync -s dfs -- "$PROG/lost_wakeup_ok")
is $? 0 "cts-slurm.sh submits the array and the merge job"
merge_id=${ids#* }
# Bounded by the test's own timeout, not by how fast the jobs run: a
# loaded machine (prove -j2 beside other work) took more than the 60 s this
# loop used to allow.
for _ in $(seq 900); do
	[ -s "$T/sl/merge.status" ] && break
	sleep 0.2  # waiting for the jobs to finish
done
is "$(cat "$T/sl/merge.status" 2>/dev/null)" 0 "the merge job ran after the array: exit 0"
is "$(jq -r .runs "$T/sl/report.json" 2>/dev/null)" "$(jq -r .runs one.json)" "the merged report has the single search's runs"
is "$(jq -r .complete "$T/sl/report.json" 2>/dev/null)" true "the merged report is complete"
is "$(jq -r .shard.merged "$T/sl/report.json" 2>/dev/null)" 3 "from 3 shards"
[ -s "$T/sl/merge.status" ] || { diag "merge job $merge_id: $(cat "$T/sl/merge.log" 2>/dev/null | head -5)"; squeue 2>&1 | head -5 | sed 's/^/# /'; }

stop_daemons
left=0
for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left=1; done
is "$left" 0 "munged, slurmctld and slurmd stopped"
is "$(pgrep -fc "slurmstepd.*$S|$S/slurm.conf")" 0 "no Slurm process of the test left"

done_testing
