#!/bin/sh
# Debian's Chromium for the browser tests (Playwright drives it through executable_path;
# `playwright install` cannot download browsers on these machines). Does nothing when a
# Chromium is already there; uses sudo when not run as root.
set -e
command -v chromium >/dev/null 2>&1 && exit 0
[ "$(id -u)" = 0 ] && as_root="" || as_root="sudo"
$as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq chromium >/dev/null
command -v chromium
