#!/usr/bin/env bash
# A single-node SLURM cluster with accounting on this Debian machine, for testing the SLURM
# profile (profiles/slurm) as a real site would run it. Run as root:
#
#   workflow/cluster/local-slurm.sh up       # install (apt), configure, start; idempotent
#   workflow/cluster/local-slurm.sh status   # which daemons run; exit 0 iff the cluster is usable
#   workflow/cluster/local-slurm.sh down     # stop only the daemons this script started
#
# What `up` does, each step skipped when already done:
#   packages   munge mariadb-server slurmdbd slurmctld slurmd slurm-client (apt, no recommends;
#              service starts by the packages are blocked, no systemd is needed)
#   munge      a key in /etc/munge/munge.key, munged
#   database   mariadbd (the Debian data directory), database slurm_acct_db, user slurm
#   slurmdbd   /etc/slurm/slurmdbd.conf (accounting_storage/mysql)
#   slurm      /etc/slurm/slurm.conf: one node sized by `slurmd -C` (the host's CPUs and
#              memory), select/cons_tres with CR_Core (cores are the consumable: memory requests
#              are checked against the node, not reserved), proctrack/linuxproc, task/none,
#              accounting through slurmdbd (the Snakemake plugin polls jobs with sacct; job
#              comments are stored, they name each job's rule and wildcards)
#   sacctmgr   cluster, account and the users root and $SUDO_USER (plus $LOCAL_SLURM_USERS)
#
# Daemons are started directly in the foreground mode of each (-D/-F) under setsid, their PIDs
# kept in /run/local-slurm; `down` signals only those PIDs (checking the process name, so a
# reused PID is never hit). A daemon of the same name already running, not started here
# (munged, mariadbd), is used as it is and left alone. Existing /etc/slurm/*.conf files not
# written by this script are never overwritten: `up` refuses instead.
#
# Settings (environment): LOCAL_SLURM_CLUSTER (default: local), LOCAL_SLURM_PARTITION (local),
# LOCAL_SLURM_ACCOUNT (local), LOCAL_SLURM_USERS (extra users, space-separated).
set -euo pipefail

CLUSTER=${LOCAL_SLURM_CLUSTER:-local}
PARTITION=${LOCAL_SLURM_PARTITION:-local}
ACCOUNT=${LOCAL_SLURM_ACCOUNT:-local}
USERS="root ${SUDO_USER:-} ${LOCAL_SLURM_USERS:-}"
PACKAGES=(munge mariadb-server slurmdbd slurmctld slurmd slurm-client)

RUN=/run/local-slurm               # our PID files
VAR=/var/lib/local-slurm           # the database password
LOGS=/var/log/local-slurm          # daemons' logs
ETC=/etc/slurm
MARK="# written by local-slurm.sh (sampled-metrics): single-node test cluster"
DB=slurm_acct_db
HOST=$(hostname -s)
# start order; `down` goes in reverse
DAEMONS=(munged mariadbd slurmdbd slurmctld slurmd)

say() { echo "local-slurm: $*"; }
die() { echo "local-slurm: error: $*" >&2; exit 1; }

# -- daemons we started: PID file + process name --------------------------------------------
ours() {  # ours NAME -> prints the PID if NAME runs from our PID file
    local f="$RUN/$1.pid" pid
    [[ -s $f ]] || return 1
    pid=$(<"$f")
    [[ -r /proc/$pid/comm && $(</proc/"$pid"/comm) == "$1" ]] || return 1
    echo "$pid"
}

foreign() {  # foreign NAME -> true if a process NAME runs that is not ours
    local mine
    mine=$(ours "$1" || true)
    pgrep -x "$1" | grep -vqx "${mine:-none}"
}

launch() {  # launch NAME CMD...: start CMD (foreground mode) detached, record its PID
    local name=$1; shift
    mkdir -p "$RUN" "$LOGS"
    setsid "$@" >>"$LOGS/$name.out" 2>&1 </dev/null &
    echo $! >"$RUN/$name.pid"
    sleep 0.3
    ours "$name" >/dev/null || die "$name did not start (see $LOGS/$name.out and $LOGS/$name.log)"
    say "$name started (pid $(<"$RUN/$name.pid"))"
}

wait_for() {  # wait_for SECONDS WHAT CMD...: until CMD succeeds
    local t=$1 what=$2; shift 2
    for ((i = 0; i < t * 4; i++)); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.25
    done
    die "$what not ready after ${t}s (logs in $LOGS)"
}

write_conf() {  # write_conf PATH OWNER MODE < content: only if new or changed; ours only
    local path=$1 owner=$2 mode=$3 tmp
    tmp=$(mktemp)
    cat >"$tmp"
    if [[ -e $path ]] && ! head -1 "$path" | grep -qxF "$MARK"; then
        rm -f "$tmp"
        die "$path exists and was not written by this script; not touching it (move it away)"
    fi
    if [[ -e $path ]] && cmp -s "$tmp" "$path"; then rm -f "$tmp"; return 1; fi
    install -o "$owner" -g "$owner" -m "$mode" "$tmp" "$path"
    rm -f "$tmp"
    say "wrote $path"
}

# -- up ---------------------------------------------------------------------------------------
install_packages() {
    local missing=() p guard=
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed \
            || missing+=("$p")
    done
    ((${#missing[@]})) || return 0
    command -v apt-get >/dev/null || die "apt-get not found: this script is for Debian"
    say "installing ${missing[*]}"
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then  # packages must not start services themselves
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        guard=1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >"$LOGS/apt.log" 2>&1 || { tail -20 "$LOGS/apt.log"; [[ -z $guard ]] \
        || rm -f /usr/sbin/policy-rc.d; die "apt-get install failed (log: $LOGS/apt.log)"; }
    [[ -z $guard ]] || rm -f /usr/sbin/policy-rc.d
}

start_munge() {
    if [[ ! -s /etc/munge/munge.key ]]; then
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
        say "created /etc/munge/munge.key"
    fi
    chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
    install -d -o munge -g munge -m 755 /run/munge
    install -d -o munge -g munge -m 700 /var/lib/munge /var/log/munge
    if ! ours munged >/dev/null && ! foreign munged; then
        launch munged setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged -F
    fi
    wait_for 20 munge sh -c 'munge -n | unmunge'
}

start_mariadb() {
    if ! mysqladmin ping >/dev/null 2>&1; then
        foreign mariadbd && die "a mariadbd not started by this script runs but does not answer"
        [[ -d /var/lib/mysql/mysql ]] || mariadb-install-db --user=mysql \
            --datadir=/var/lib/mysql >"$LOGS/mariadb-install-db.log" 2>&1
        install -d -o mysql -g mysql -m 755 /run/mysqld
        ours mariadbd >/dev/null || launch mariadbd /usr/sbin/mariadbd --user=mysql
        wait_for 60 mariadb mysqladmin ping
    fi
    install -d -m 700 "$VAR"
    [[ -s $VAR/dbpass ]] || (umask 077; head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$VAR/dbpass")
    mysql -u root <<SQL
CREATE DATABASE IF NOT EXISTS $DB;
CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '$(<"$VAR/dbpass")';
ALTER USER 'slurm'@'localhost' IDENTIFIED BY '$(<"$VAR/dbpass")';
GRANT ALL ON $DB.* TO 'slurm'@'localhost';
SQL
}

configure_slurm() {
    local node
    install -d -o slurm -g slurm -m 755 "$ETC" /run/slurm /var/lib/slurm \
        /var/lib/slurm/slurmctld /var/lib/slurm/slurmd
    chown slurm:slurm "$LOGS"
    # the host as a node: CPUs, sockets, cores, threads and memory as slurmd sees them
    node=$(slurmd -C 2>/dev/null | grep '^NodeName=' | sed "s/^NodeName=[^ ]*/NodeName=$HOST/")
    [[ -n $node ]] || die "'slurmd -C' did not describe the host"
    write_conf "$ETC/slurmdbd.conf" slurm 600 <<EOF || true
$MARK
DbdHost=localhost
SlurmUser=slurm
AuthType=auth/munge
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=$(<"$VAR/dbpass")
StorageLoc=$DB
PidFile=/run/slurm/slurmdbd.pid
LogFile=$LOGS/slurmdbd.log
EOF
    write_conf "$ETC/slurm.conf" slurm 644 <<EOF && CONF_CHANGED=1 || true
$MARK
ClusterName=$CLUSTER
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStorageEnforce=associations
AccountingStoreFlags=job_comment
MpiDefault=none
ReturnToService=2
MinJobAge=300
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=$PARTITION Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
}

ensure() {  # ensure WHAT CHECK... -- ADD...: run ADD unless CHECK prints something
    local what=$1; shift
    local check=() add=()
    while [[ $1 != -- ]]; do check+=("$1"); shift; done
    shift; add=("$@")
    [[ -n $("${check[@]}" 2>/dev/null) ]] && return 0
    "${add[@]}" >/dev/null
    say "added $what"
}

start_slurm() {
    ours slurmdbd >/dev/null || { foreign slurmdbd && die "a slurmdbd not started by this script runs"
                                 launch slurmdbd /usr/sbin/slurmdbd -D; }
    wait_for 60 slurmdbd sacctmgr -n list cluster
    ensure "cluster $CLUSTER" sacctmgr -n -P list cluster "$CLUSTER" format=cluster -- \
        sacctmgr -i add cluster "$CLUSTER"
    ensure "account $ACCOUNT" sacctmgr -n -P list account "$ACCOUNT" format=account -- \
        sacctmgr -i add account "$ACCOUNT" cluster="$CLUSTER" description=local-test \
        organization=local
    local u
    for u in $USERS; do
        ensure "user $u in account $ACCOUNT" sacctmgr -n -P list assoc cluster="$CLUSTER" \
            account="$ACCOUNT" user="$u" format=user -- \
            sacctmgr -i add user "$u" account="$ACCOUNT" cluster="$CLUSTER"
    done
    if ours slurmctld >/dev/null; then
        [[ -z ${CONF_CHANGED:-} ]] || { scontrol reconfigure; say "slurmctld reconfigured"; }
    else
        foreign slurmctld && die "a slurmctld not started by this script runs"
        launch slurmctld /usr/sbin/slurmctld -D
    fi
    wait_for 60 slurmctld scontrol ping
    if ! ours slurmd >/dev/null; then
        foreign slurmd && die "a slurmd not started by this script runs"
        launch slurmd /usr/sbin/slurmd -D
    fi
    wait_for 60 "node $HOST" sh -c "sinfo -h -n $HOST -o %T | grep -Eq '^(idle|mixed|allocated)'"
}

up() {
    local t0=$SECONDS
    mkdir -p "$RUN" "$LOGS"
    install_packages
    start_munge
    start_mariadb
    configure_slurm
    start_slurm
    say "up in $((SECONDS - t0)) s: cluster $CLUSTER, partition $PARTITION, account $ACCOUNT"
    sinfo -h -N -o '%N: %c CPUs, %m MB, %T' | sed 's/^/local-slurm: node /'
}

# -- down / status ----------------------------------------------------------------------------
down() {
    local i name pid
    for ((i = ${#DAEMONS[@]} - 1; i >= 0; i--)); do
        name=${DAEMONS[i]}
        if pid=$(ours "$name"); then
            kill -TERM "$pid"
            for ((t = 0; t < 120; t++)); do [[ -d /proc/$pid ]] || break; sleep 0.25; done
            [[ ! -d /proc/$pid ]] || { kill -KILL "$pid"; say "$name killed (pid $pid)"; }
            say "$name stopped (pid $pid)"
        fi
        rm -f "$RUN/$name.pid"
    done
}

status() {
    local name pid ok=0
    for name in "${DAEMONS[@]}"; do
        if pid=$(ours "$name"); then say "$name running (pid $pid, started here)"
        elif foreign "$name"; then say "$name running (not started here)"
        else say "$name stopped"; ok=3
        fi
    done
    if ((ok == 0)); then
        sinfo -h -N -o '%N %c CPUs %m MB %T %P' | sed 's/^/local-slurm: node /'
        sacct -n -X -S now-1minutes >/dev/null 2>&1 || { say "sacct does not answer"; ok=3; }
    fi
    return $ok
}

[[ $# -eq 1 ]] || die "usage: $0 up|down|status"
[[ $1 == status ]] || [[ $EUID -eq 0 ]] || die "must run as root (it installs packages and starts daemons)"
case $1 in
    up) up ;;
    down) down ;;
    status) status ;;
    *) die "unknown command '$1' (expected up, down or status)" ;;
esac
