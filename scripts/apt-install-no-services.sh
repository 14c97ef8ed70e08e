#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are not installed yet, and starts or enables no
# service they bring: the set-up may run on a server someone is accepting, and mlbench's tests start the
# daemons they need themselves (munged, slurmctld, slurmd, prometheus) in a temporary folder and stop them.
#
# How, during the apt-get install only:
#   - /usr/sbin/policy-rc.d exiting 101 forbids invoke-rc.d and deb-systemd-invoke to start anything. It is
#     created only when there is none (O_EXCL: bash's noclobber) and removed at the end only when it is still
#     the file this script created; an existing one is the administrator's policy and stays as it is.
#   - /etc/systemd/system-preset/00-mlbench-setup.preset, `disable *`: a package installed for the first time
#     enables its units through `systemctl preset` (deb-systemd-helper), which this preset turns into
#     "disabled". Created and removed the same way (and its folder, when this script made it). A package that
#     was already installed is not reinstalled, so its units keep the state they had.
# Then each service the install added (a systemd unit or a SysV init script) is checked: one that runs anyway
# (an administrator's policy-rc.d that allows starts) is stopped, and one set to start at boot anyway (the SysV
# start links update-rc.d makes for the packages' init scripts, or a helper that ignores presets) no longer
# is, each with a line saying so. Services that were there before are never touched. Nothing at all is done
# when every package is installed already.
#
# Usage: scripts/apt-install-no-services.sh PACKAGE...   (as root or with sudo)
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi

missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

policy=/usr/sbin/policy-rc.d
preset=/etc/systemd/system-preset/00-mlbench-setup.preset
created=() # "path inode" of each guard file or folder this script created, in the order made

# create_guard PATH MODE CONTENT: creates PATH (and its folder, when /etc/systemd has none) only if nothing is
# there; the file is opened with O_EXCL (bash's noclobber), so one that appears meanwhile is not overwritten.
create_guard() {
  local path=$1 mode=$2 content=$3 dir
  dir=$(dirname "$path")
  if [ -e "$path" ] || [ -L "$path" ] || [ ! -d "$(dirname "$dir")" ]; then return 0; fi
  if [ ! -d "$dir" ]; then
    $SUDO mkdir "$dir"
    created+=("$dir $(stat -c %i "$dir")")
  fi
  # shellcheck disable=SC2016 # $1 is expanded by the inner bash
  printf '%s\n' "$content" | $SUDO bash -c 'set -C; cat > "$1"' _ "$path"
  $SUDO chmod "$mode" "$path"
  created+=("$path $(stat -c %i "$path")")
}
# Removes, newest first, each guard this script created that is still the same file or folder (same inode).
remove_guards() {
  local i path inode
  for ((i = ${#created[@]} - 1; i >= 0; i--)); do
    path=${created[i]% *}
    inode=${created[i]##* }
    [ "$(stat -c %i "$path" 2>/dev/null)" = "$inode" ] || continue
    if [ -d "$path" ]; then $SUDO rmdir "$path" 2>/dev/null || true; else $SUDO rm -f "$path"; fi
  done
}
trap remove_guards EXIT

# The services installed now, by name: systemd service units and SysV init scripts (template units left out).
services() {
  {
    systemctl list-unit-files --type=service --no-legend 2>/dev/null | awk '$1 !~ /@/ {sub(/\.service$/, "", $1); print $1}'
    ls /etc/init.d 2>/dev/null
  } | sort -u
}
services_before=$(services)

create_guard "$policy" 755 '#!/bin/sh
# mlbench set-up (scripts/apt-install-no-services.sh): no service starts while it installs packages.
exit 101'
create_guard "$preset" 644 '# mlbench set-up (scripts/apt-install-no-services.sh): packages it installs enable no unit.
disable *'

$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"

for name in $(comm -13 <(printf '%s\n' "$services_before") <(services)); do
  if service "$name" status >/dev/null 2>&1; then
    echo "setup: stopping $name, started by its package's installation"
    $SUDO service "$name" stop
  fi
  # update-rc.d disable turns the SysV start links into stop links and disables the systemd unit as well.
  if [ -x "/etc/init.d/$name" ] && compgen -G "/etc/rc[2-5].d/S[0-9][0-9]$name" >/dev/null; then
    echo "setup: $name will not start at boot (its package's installation enabled it)"
    $SUDO update-rc.d "$name" disable >/dev/null
  elif [ "$(systemctl is-enabled "$name" 2>/dev/null)" = enabled ]; then
    echo "setup: $name will not start at boot (its package's installation enabled it)"
    $SUDO systemctl disable --quiet "$name"
  fi
done
