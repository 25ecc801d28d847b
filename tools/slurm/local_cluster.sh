#!/bin/bash
# A one-node Slurm cluster on this machine, to try `course grade --slurm` (and to test it in CI).
#
#   tools/slurm/local_cluster.sh start   installs slurm-wlm and munge with apt-get if missing, writes a
#                                        slurm.conf for this host, starts munged, slurmctld and slurmd
#   tools/slurm/local_cluster.sh stop    stops the three daemons it started (by their pid files)
#   tools/slurm/local_cluster.sh status  sinfo
#
# Runs as root (the daemons do too). No accounting, no cgroups (ProctrackType=proctrack/linuxproc,
# TaskPlugin=task/none): it runs in containers as well. Its files live in $COURSE_SLURM_STATE
# (default /var/tmp/course-slurm); /etc/slurm/slurm.conf is written only when it is not there yet
# or is this script's own.
set -euo pipefail

STATE=${COURSE_SLURM_STATE:-/var/tmp/course-slurm}
CONF_DIR=/etc/slurm
CONF=$CONF_DIR/slurm.conf
MARK="# written by tools/slurm/local_cluster.sh"

say() { echo "local_cluster: $*"; }
fail() { say "$*" >&2; exit 1; }

running() {  # pid file
    [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

need_root() {
    [ "$(id -u)" = 0 ] || fail "run as root: the Slurm and munge daemons start as root"
}

install_packages() {
    command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null && return
    command -v apt-get >/dev/null || fail "slurm-wlm and munge are missing and there is no apt-get to install them"
    local started=$SECONDS
    say "installing slurm-wlm and munge with apt-get"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
    say "installed in $((SECONDS - started)) s"
}

write_config() {
    if [ -f "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
        fail "$CONF exists and is not this script's: this machine has its own Slurm; use it instead"
    fi
    local host cpus memory
    host=$(hostname -s)
    cpus=$(nproc)
    memory=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
    mkdir -p "$CONF_DIR" "$STATE/ctld" "$STATE/d" "$STATE/log"
    # The machine's GPUs as generic resources, so that jobs may ask for them (--gres=gpu:N) and Slurm sets
    # each job's CUDA_VISIBLE_DEVICES; none without /dev/nvidiaN.
    local gpus gres_types="" node_gres=""
    gpus=$(find /dev -maxdepth 1 -regex '/dev/nvidia[0-9]+' | sort -V)
    if [ -n "$gpus" ]; then
        gres_types="GresTypes=gpu"
        node_gres="Gres=gpu:$(echo "$gpus" | wc -l)"
        echo "$gpus" | sed "s|^|Name=gpu File=|" >"$CONF_DIR/gres.conf"
    fi
    cat >"$CONF" <<EOF
$MARK
ClusterName=course
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
$gres_types
NodeName=$host CPUs=$cpus RealMemory=$memory $node_gres State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
    running /run/munge/munged.pid && return
    mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
    if [ ! -s /etc/munge/munge.key ]; then
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
    chmod 0400 /etc/munge/munge.key
    chmod 0700 /etc/munge /var/lib/munge /var/log/munge
    chmod 0755 /run/munge
    munged --force
    touch "$STATE/started-munged"  # stop ends only the munged that this script started
}

wait_for_node() {
    local deadline=$((SECONDS + 60)) state
    while [ $SECONDS -lt $deadline ]; do
        state=$(sinfo -h -o %T 2>/dev/null | head -1 || true)
        case "$state" in
            idle*|mixed*|allocated*) return 0 ;;
            down*|drain*) scontrol update nodename="$(hostname -s)" state=resume 2>/dev/null || true ;;
        esac
        sleep 1
    done
    fail "the node did not come up within 60 s (logs in $STATE/log)"
}

start() {
    need_root
    local started=$SECONDS
    install_packages
    write_config
    start_munge
    running "$STATE/slurmctld.pid" || slurmctld
    running "$STATE/slurmd.pid" || slurmd
    wait_for_node
    say "a one-node cluster runs on $(hostname -s) (partition local); ready in $((SECONDS - started)) s"
}

stop_daemon() {  # pid file, name
    if [ -s "$1" ]; then
        local pid
        pid=$(cat "$1")
        if kill "$pid" 2>/dev/null; then
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            say "stopped $2 ($pid)"
        fi
        rm -f "$1"
    fi
}

stop() {
    need_root
    stop_daemon "$STATE/slurmd.pid" slurmd
    stop_daemon "$STATE/slurmctld.pid" slurmctld
    if [ -e "$STATE/started-munged" ]; then
        stop_daemon /run/munge/munged.pid munged
        rm -f "$STATE/started-munged"
    fi
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) sinfo ;;
    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
