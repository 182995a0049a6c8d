#!/bin/sh
# TypeScript for the browser table's JavaScript check (tsconfig.json): the version package.json
# pins, installed by `npm ci` from package-lock.json into node_modules/ (a tool of the checks
# only: the page loads nothing of it). Node.js and npm come from Debian's packages when the
# machine has none (sudo when not root). Does nothing when the pinned version is there already.
set -e
cd "$(dirname "$0")/.."
if ! command -v npm >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] && as_root="" || as_root="sudo"
  $as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq nodejs npm >/dev/null
fi
pinned=$(node -p 'require("./package.json").devDependencies.typescript')
if [ -x node_modules/.bin/tsc ] && [ "$(node_modules/.bin/tsc --version)" = "Version $pinned" ]; then
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error >/dev/null
node_modules/.bin/tsc --version
