#!/usr/bin/env bash
# Installs the programs the integration tests drive, when missing:
# OpenSSH's sshd (package openssh-server), tmux, and for the network
# namespace test (internal/integration/netns_test.go) ip and ping (iproute2,
# iputils-ping), and for the browser test of the HTML report
# (report/browser_test.go) Debian's chromium and chromium-driver.
# Debian/Ubuntu only.
set -euo pipefail
need=()
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v ping >/dev/null 2>&1 || need+=(iputils-ping)
command -v chromium >/dev/null 2>&1 || need+=(chromium chromium-driver)
[ ${#need[@]} -eq 0 ] && exit 0
echo "installing test dependencies: ${need[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
