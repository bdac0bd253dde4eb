#!/bin/sh
# The workshop image's entrypoint: one Streamlit process per core the container may use, behind
# nginx with sticky sessions (deploy/nginx/sticky.conf.template), all in one `docker run`.
#
# One Streamlit process runs its scripts on one core at a time (the interpreter lock), so a
# single process leaves the other cores of a laptop idle while a room of visitors waits. Here:
#
#   - N app processes on 127.0.0.1:PEE_APP_PORT, PEE_APP_PORT+1, ... (N: PEE_PROCESSES, or the
#     container's CPU quota, cgroup v2 cpu.max or v1 cpu.cfs_quota_us / cpu.cfs_period_us,
#     rounded up, at most the CPUs this process may run on, at least 1), sharing one cookie
#     secret (STREAMLIT_SERVER_COOKIE_SECRET, made here when not given) so that a process that
#     takes a browser over accepts the XSRF cookie another one set;
#   - nginx on PEE_PORT (8501) in front of them: a routing cookie per browser and a hash on it,
#     so every request and tab of a browser reaches the same process; /_stcore/metrics answered
#     404 by nginx; uploads rate-limited per client (the template says why);
#   - each app process started again when it exits (its visitors' browsers reconnect through
#     nginx, to another process while it starts, and get a fresh session; the URL holds the view);
#     nginx exiting ends the container, and SIGTERM (docker stop) stops everything.
#
# PEE_PROXY=none runs one app process on PEE_PORT with no nginx (the Kubernetes manifests: one
# process per pod, the Ingress in front). Arguments are passed to every app process
# (`docker run IMAGE --client.showErrorDetails=full`). `entrypoint.sh --cores` prints N and exits.
# PEE_TRUSTED_PROXIES: the addresses or CIDR ranges of proxies in front whose X-Forwarded-For nginx
# believes (the client address the upload limit keys on); unset, none (docs/deploy.md).
# deploy/image/nginx.py renders nginx's configuration and starts it with nothing written to disk;
# deploy/image/healthcheck.py (the image's HEALTHCHECK) asks nginx and every app process.
set -eu

cd "$(dirname "$0")/../.."  # the app's root: /app in the image, the checkout when run by the load bench
PORT=${PEE_PORT:-8501}
APP_PORT=${PEE_APP_PORT:-8511}
RUN_DIR=${PEE_RUN_DIR:-/tmp/pee-explorer}
CGROUP=${PEE_CGROUP_ROOT:-/sys/fs/cgroup}
STREAMLIT=${PEE_STREAMLIT:-streamlit}  # word-split on purpose: the bench passes "python -m streamlit"
NGINX=${PEE_NGINX:-nginx}
RESTART_PAUSE=${PEE_RESTART_PAUSE:-1}  # seconds before an exited app process is started again ...
QUICK_PAUSE=${PEE_QUICK_RESTART_PAUSE:-5}  # ... or, if it lived under 10 s, these (no tight loop of failing starts)

say() { echo "pe-explorer: $*" >&2; }

whole() { case ${1:-x} in '' | *[!0-9]*) return 1 ;; *) return 0 ;; esac; }

# The cores this container may use: its CFS quota divided by the period, rounded up (1.5 cores
# of quota serve two processes, one of them half the time), at most the CPUs online to it
# (nproc follows the cpuset), at least 1. No quota ("max", -1, or no cgroup file): the CPUs online.
cores() {
    online=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
    whole "$online" && [ "$online" -ge 1 ] || online=1
    quota='' period=''
    if [ -r "$CGROUP/cpu.max" ]; then
        read -r quota period <"$CGROUP/cpu.max" || true
    else
        for dir in "$CGROUP/cpu" "$CGROUP/cpu,cpuacct" "$CGROUP"; do
            if [ -r "$dir/cpu.cfs_quota_us" ] && [ -r "$dir/cpu.cfs_period_us" ]; then
                quota=$(cat "$dir/cpu.cfs_quota_us") period=$(cat "$dir/cpu.cfs_period_us")
                break
            fi
        done
    fi
    n=$online
    if whole "$quota" && whole "$period" && [ "$quota" -gt 0 ] && [ "$period" -gt 0 ]; then
        q=$(((quota + period - 1) / period))
        [ "$q" -lt "$n" ] && n=$q
    fi
    echo "$n"
}

if [ "${1:-}" = "--cores" ]; then
    cores
    exit 0
fi

if [ -n "${PEE_PROCESSES:-}" ]; then
    whole "$PEE_PROCESSES" && [ "$PEE_PROCESSES" -ge 1 ] || { say "PEE_PROCESSES=$PEE_PROCESSES is not a whole number of at least 1"; exit 2; }
    N=$PEE_PROCESSES
else
    N=$(cores)
fi

# the options every app process runs with; the image's files never change, so no file watcher
set -- --server.headless=true --browser.gatherUsageStats=false --server.fileWatcherType=none "$@"

if [ "${PEE_PROXY:-nginx}" = none ]; then
    # shellcheck disable=SC2086
    exec $STREAMLIT run app.py --server.address=0.0.0.0 --server.port="$PORT" "$@"
fi

if [ -z "${STREAMLIT_SERVER_COOKIE_SECRET:-}" ]; then
    STREAMLIT_SERVER_COOKIE_SECRET=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
    export STREAMLIT_SERVER_COOKIE_SECRET
fi
# The lab trains in threads of each process: one trainer per core in all, unless told otherwise.
if [ -z "${PEE_LAB_MAX_RUNS:-}" ]; then
    c=$(cores)
    PEE_LAB_MAX_RUNS=$(((c + N - 1) / N))
    export PEE_LAB_MAX_RUNS
fi
# One network address holds at most this many of all the processes' trainers: one fewer than there are (at least
# one), so that whatever routing cookies it sends it never holds them all; the processes count them through lock
# files in one folder (core/lab/trainers.py, AddressLocks).
if [ -z "${PEE_LAB_TRAINERS_PER_ADDRESS:-}" ]; then
    t=1
    whole "$PEE_LAB_MAX_RUNS" && [ $((N * PEE_LAB_MAX_RUNS)) -gt 2 ] && t=$((N * PEE_LAB_MAX_RUNS - 1))
    PEE_LAB_TRAINERS_PER_ADDRESS=$t
    export PEE_LAB_TRAINERS_PER_ADDRESS
fi
# Their folder is made in /dev/shm, a tmpfs every container has writable even when its root filesystem (and so
# RUN_DIR) is mounted read-only; one folder per entrypoint, so that two run on one machine (the load bench) never
# share counts, removed when it stops. Without /dev/shm, RUN_DIR; without either, each process limits alone.
made_lock_dir=''
if [ -z "${PEE_LAB_LOCK_DIR:-}" ]; then
    if made_lock_dir=$(mktemp -d /dev/shm/pee-explorer-trainers.XXXXXX 2>/dev/null); then
        PEE_LAB_LOCK_DIR=$made_lock_dir
    else
        made_lock_dir=''
        PEE_LAB_LOCK_DIR=$RUN_DIR/trainers
        mkdir -p "$PEE_LAB_LOCK_DIR" 2>/dev/null || say "no writable folder for the trainers' locks (/dev/shm, $RUN_DIR): each app process limits an address's trainers alone"
    fi
fi
export PEE_LAB_LOCK_DIR

mkdir -p "$RUN_DIR"  # nginx's scratch folders go here (the Dockerfile makes it: the image may be mounted read-only)
ports=''
i=0
while [ "$i" -lt "$N" ]; do
    ports="$ports $((APP_PORT + i))"
    i=$((i + 1))
done

# One app process on port $1, started again whenever it exits, until this loop gets SIGTERM.
serve() {
    port=$1
    shift
    child=''
    trap '[ -z "$child" ] || kill -TERM "$child" 2>/dev/null; [ -z "$child" ] || wait "$child"; exit 0' TERM INT
    while :; do
        start=$(date +%s)
        # shellcheck disable=SC2086
        $STREAMLIT run app.py --server.address=127.0.0.1 --server.port="$port" "$@" &
        child=$!
        status=0
        wait "$child" || status=$?
        pause=$RESTART_PAUSE
        [ $(($(date +%s) - start)) -ge 10 ] || pause=$QUICK_PAUSE
        say "the app process on port $port (pid $child) exited with status $status; starting it again in $pause s"
        child=''
        sleep "$pause"
    done
}

pids=''
for p in $ports; do
    serve "$p" "$@" &
    pids="$pids $!"
done
# shellcheck disable=SC2086
stop() {
    trap '' TERM INT
    kill -TERM $pids ${nginx_pid:-} 2>/dev/null || true
    wait
    [ -z "$made_lock_dir" ] || rm -rf "$made_lock_dir"
    exit "${1:-0}"
}
trap 'stop 0' TERM INT

say "$N app process(es) on 127.0.0.1:${ports# } behind nginx on port $PORT (PEE_LAB_MAX_RUNS=$PEE_LAB_MAX_RUNS each, PEE_LAB_TRAINERS_PER_ADDRESS=$PEE_LAB_TRAINERS_PER_ADDRESS in all)"
# shellcheck disable=SC2086
python deploy/image/nginx.py --listen "${PEE_LISTEN:-0.0.0.0}:$PORT" --app-ports $ports --run-dir "$RUN_DIR" --nginx "$NGINX" ${PEE_ACCESS_LOG:+--access-log "$PEE_ACCESS_LOG"} &
nginx_pid=$!
status=0
wait "$nginx_pid" || status=$?
say "nginx exited with status $status; stopping the app processes"
stop 1
