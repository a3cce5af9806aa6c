#!/usr/bin/env bash
# Host side of benchmark pinning for a self-hosted `perf-pinned` GitHub Actions runner.
#
# perfgate itself applies and records the per-process side (CPU affinity, numactl memory
# binding, NUMBA_* / OMP_* / BLAS thread environment: perfgate/src/perfgate/pinning.py) and refuses
# to compare runs whose fingerprints differ (perfgate/src/perfgate/machine.py). This script prepares
# and checks the host so that those fingerprints are stable:
#
#   check   (default) print the current state; exit 1 if anything is not as wanted
#   apply   set governor, turbo, THP now (root; lost on reboot: run it from a systemd unit)
#   unit    print a systemd unit that runs `apply` at boot
#   runner  print the commands that create the runner user and register the runner
#
# Settings (environment):
#   PERF_GOVERNOR  scaling governor                  (default performance)
#   PERF_TURBO     on|off                            (default off: no frequency boost jitter)
#   PERF_THP       transparent hugepages mode        (default madvise)
#   PERF_CPUS      CPUs reserved for benchmarks      (default: all but CPU 0 of node 0)
#   RUNNER_USER    unprivileged account for the runner (default perfrunner)
#   RUNNER_LABELS  extra labels (default perf-pinned,perf-$(hostname -s))
#
# Isolation of PERF_CPUS from the scheduler cannot be switched on at run time; put on the
# kernel command line (e.g. /etc/default/grub GRUB_CMDLINE_LINUX, then update-grub, reboot):
#     isolcpus=managed_irq,domain,$PERF_CPUS nohz_full=$PERF_CPUS rcu_nocbs=$PERF_CPUS
# or, without a reboot, shield them with cpuset (package `cpuset`):
#     cset shield --cpu "$PERF_CPUS" --kthread on
# and keep IRQs off them (stop irqbalance; write the other CPUs to /proc/irq/*/smp_affinity_list).
set -euo pipefail

SYS=${SYSFS_ROOT:-}/sys
GOVERNOR=${PERF_GOVERNOR:-performance}
TURBO=${PERF_TURBO:-off}
THP=${PERF_THP:-madvise}
RUNNER_USER=${RUNNER_USER:-perfrunner}

default_cpus() {
    local online
    online=$(cat "$SYS/devices/system/cpu/online")
    # all online CPUs but 0, which keeps the OS, the runner agent and IRQs
    case "$online" in
        0-1) echo "1" ;;
        0-*) echo "1-${online#0-}" ;;
        0,*) echo "${online#0,}" ;;
        *) echo "$online" ;;
    esac
}
PERF_CPUS=${PERF_CPUS:-$(default_cpus)}

want_no_turbo() { [[ "$TURBO" == "off" ]] && echo 1 || echo 0; }

check() {
    local bad=0 seen=0 gov file value unverified=""
    for file in "$SYS"/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor; do
        [[ -e "$file" ]] || continue
        seen=1
        gov=$(cat "$file")
        if [[ "$gov" != "$GOVERNOR" ]]; then
            echo "governor: $file is $gov, want $GOVERNOR"
            bad=1
        fi
    done
    [[ "$seen" -eq 1 ]] || unverified="governor"
    if [[ -e "$SYS/devices/system/cpu/intel_pstate/no_turbo" ]]; then
        value=$(cat "$SYS/devices/system/cpu/intel_pstate/no_turbo")
        if [[ "$value" != "$(want_no_turbo)" ]]; then
            echo "turbo: intel_pstate/no_turbo=$value, want turbo $TURBO"
            bad=1
        fi
    elif [[ -e "$SYS/devices/system/cpu/cpufreq/boost" ]]; then
        value=$(cat "$SYS/devices/system/cpu/cpufreq/boost")
        if [[ "$value" == "$(want_no_turbo)" ]]; then
            echo "turbo: cpufreq/boost=$value, want turbo $TURBO"
            bad=1
        fi
    else
        unverified="${unverified:+$unverified and }turbo"
    fi
    value=$(cat "$SYS/kernel/mm/transparent_hugepage/enabled" 2>/dev/null || echo unknown)
    if [[ "$value" != *"[$THP]"* ]]; then
        echo "thp: $value, want [$THP]"
        bad=1
    fi
    if ! grep -q "isolcpus=" /proc/cmdline 2>/dev/null; then
        echo "isolation: no isolcpus= on the kernel command line (see the header of $0)"
    fi
    command -v numactl >/dev/null || echo "numactl: not installed (apt-get install numactl)"
    echo "benchmark CPUs: $PERF_CPUS"
    if [[ -n "$unverified" ]]; then
        # a VM or container may not expose cpufreq: say so instead of claiming a tuned host
        echo "host tuning: $unverified not exposed by this kernel; cannot verify"
    fi
    [[ "$bad" -eq 0 ]] && echo "host tuning: ok${unverified:+ (except the unverifiable $unverified)}"
    return "$bad"
}

apply() {
    local file
    if [[ "$(id -u)" -ne 0 ]]; then
        echo "apply: must run as root" >&2
        return 2
    fi
    for file in "$SYS"/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor; do
        [[ -e "$file" ]] && echo "$GOVERNOR" >"$file"
    done
    if [[ -e "$SYS/devices/system/cpu/intel_pstate/no_turbo" ]]; then
        want_no_turbo >"$SYS/devices/system/cpu/intel_pstate/no_turbo"
    elif [[ -e "$SYS/devices/system/cpu/cpufreq/boost" ]]; then
        [[ "$TURBO" == "off" ]] && echo 0 >"$SYS/devices/system/cpu/cpufreq/boost"
        [[ "$TURBO" == "on" ]] && echo 1 >"$SYS/devices/system/cpu/cpufreq/boost"
    fi
    echo "$THP" >"$SYS/kernel/mm/transparent_hugepage/enabled"
    check
}

unit() {
    cat <<EOF
# /etc/systemd/system/perf-tune.service  (then: systemctl enable --now perf-tune)
[Unit]
Description=Benchmark host tuning for the perf-pinned runner
After=multi-user.target

[Service]
Type=oneshot
Environment=PERF_GOVERNOR=$GOVERNOR PERF_TURBO=$TURBO PERF_THP=$THP
ExecStart=$(readlink -f "$0") apply

[Install]
WantedBy=multi-user.target
EOF
}

runner() {
    local labels=${RUNNER_LABELS:-perf-pinned,perf-$(hostname -s)}
    cat <<EOF
# 1. An unprivileged account: no sudo, no docker group; it owns only the runner directory.
useradd --create-home --shell /bin/bash $RUNNER_USER
# Noise floors: after every host change, run perf-history.yml by hand on main with
# "calibrate" (floors are stored on the perf-results branch; the gate reads them there).
apt-get install -y numactl git make python3-venv
# 2. As $RUNNER_USER, in the runner directory (the registration token is typed, never stored):
./config.sh --url https://github.com/OWNER/REPO --token "\$REGISTRATION_TOKEN" \\
    --name "perf-$(hostname -s)" --labels "$labels" --unattended
#    Fork PRs run here only after a maintainer has read them and applied \`safe-to-bench\`;
#    add --ephemeral (one job per registration) if the host should start clean every time.
# 3. As root: run the runner service as $RUNNER_USER, one job at a time.
./svc.sh install $RUNNER_USER && ./svc.sh start
# perf-gate.yml selects [self-hosted, linux, x64, perf-pinned]; perf-history.yml adds the
# per-machine label (perf-$(hostname -s)) so each machine keeps its own history: list every
# machine's label in the repository variable PERF_MACHINES, e.g. ["perf-$(hostname -s)"].
EOF
}

case "${1:-check}" in
    check) check ;;
    apply) apply ;;
    unit) unit ;;
    runner) runner ;;
    *)
        echo "usage: $0 [check|apply|unit|runner]" >&2
        exit 2
        ;;
esac
