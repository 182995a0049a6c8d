#!/bin/sh
# Debian's nginx for the test that runs docs/how-to/several-servers.md's proxy configuration
# (tests/server/test_behind_nginx.py starts it on loopback with its own prefix; the system's
# nginx service is not used). Does nothing when nginx is already there; sudo when not root.
set -e
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] && exit 0
[ "$(id -u)" = 0 ] && as_root="" || as_root="sudo"
$as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq nginx-light >/dev/null
