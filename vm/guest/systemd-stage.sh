#!/bin/sh
# /vm/systemd-stage.sh — run by evroute-vm.service once systemd is PID 1
# (vm/guest/init execs it when the plan has "# boot: systemd" scenarios):
# those scenarios, then DONE and power-off (vm/guest/runner.sh).
. /vm/runner.sh
udevadm settle --timeout=10
echo "EVROUTE-VM SYSTEMD up: $(systemctl --version | head -n1), $(systemctl is-system-running 2>&1) (uptime $(cut -d' ' -f1 /proc/uptime)s)"
for s in $(cat "$STATE/systemd-scenarios"); do run_scenario "$s"; done
finish_run
