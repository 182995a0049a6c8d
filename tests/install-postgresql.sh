#!/bin/sh
# A PostgreSQL for the tests: prints the URL the suite reads from POOLHALL_TEST_POSTGRES on
# stdout (everything else goes to stderr), so that the test command can say
#   export POOLHALL_TEST_POSTGRES=$(sh tests/install-postgresql.sh)
#
# - POOLHALL_TEST_POSTGRES already set and answering: prints it, changes nothing (point the
#   tests at a server of your own this way).
# - Otherwise installs Debian's postgresql when it is not there (apt-get; sudo when not root),
#   starts the first cluster with pg_ctlcluster (creating one if there is none), creates a role
#   named after the user running this (LOGIN CREATEDB CREATEROLE; peer authentication on the
#   local socket) and a database poolhall_test it owns, and prints postgresql:///poolhall_test
#   (libpq's default socket directory, /var/run/postgresql on Debian).
#
# Each test then gets a fresh schema of that database (tests/postgres.py); the serving-role
# tests also make a role that owns nothing, and drop it. Nothing else on the server is touched.
set -e
say() { echo "install-postgresql: $*" >&2; }

url="${POOLHALL_TEST_POSTGRES:-}"
if [ -n "$url" ] && command -v psql >/dev/null 2>&1 && psql "$url" -Atqc 'select 1' >/dev/null 2>&1
then
    echo "$url"
    exit 0
fi

[ "$(id -u)" = 0 ] && as_root="" || as_root="sudo"
if ! command -v pg_lsclusters >/dev/null 2>&1 || [ -z "$(ls /usr/lib/postgresql 2>/dev/null)" ]
then
    say "installing Debian's postgresql"
    $as_root apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq postgresql >&2
fi

# The newest installed version, and its first cluster (Debian's packages create "main").
version=$(ls /usr/lib/postgresql | sort -n | tail -n 1)
cluster=$(pg_lsclusters --no-header 2>/dev/null | awk -v v="$version" '$1 == v {print $2; exit}')
if [ -z "$cluster" ]; then
    cluster=main
    say "creating the cluster $version/$cluster"
    $as_root pg_createcluster "$version" "$cluster" >&2
fi
status=$(pg_lsclusters --no-header | awk -v v="$version" -v c="$cluster" \
    '$1 == v && $2 == c {print $4}')
if [ "$status" != "online" ]; then
    say "starting the cluster $version/$cluster"
    $as_root pg_ctlcluster "$version" "$cluster" start >&2
fi
port=$(pg_lsclusters --no-header | awk -v v="$version" -v c="$cluster" \
    '$1 == v && $2 == c {print $3}')

# As the postgres superuser: a role for whoever runs the tests, and their database.
user=$(id -un)
if [ "$(id -u)" = 0 ]; then as_postgres="runuser -u postgres --"; else as_postgres="sudo -u postgres"; fi
admin() { $as_postgres psql -p "$port" -d postgres -Atqc "$1"; }
tries=0
until admin 'select 1' >/dev/null 2>&1; do  # a cluster just started takes a moment
    tries=$((tries + 1))
    [ "$tries" -lt 30 ] || { say "the cluster $version/$cluster does not answer"; exit 1; }
    sleep 1
done
if [ "$(admin "select 1 from pg_roles where rolname = '$user'")" != 1 ]; then
    say "creating the role $user"
    admin "create role \"$user\" login createdb createrole" >&2
elif [ "$(admin "select rolcreaterole or rolsuper from pg_roles where rolname = '$user'")" != t ]
then  # the serving-role tests make a role that owns nothing, and drop it
    say "letting the role $user create roles"
    admin "alter role \"$user\" createrole" >&2
fi
if [ "$(admin "select 1 from pg_database where datname = 'poolhall_test'")" != 1 ]; then
    say "creating the database poolhall_test"
    admin "create database poolhall_test owner \"$user\"" >&2
fi

if [ "$port" = 5432 ]; then
    echo "postgresql:///poolhall_test"
else
    echo "postgresql:///poolhall_test?port=$port"
fi
