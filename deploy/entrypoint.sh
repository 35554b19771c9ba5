#!/bin/sh
# The container image's entry point (Dockerfile): one image, one command per container. Each command
# is the npm script of the same name (package.json), run without npm in between so that SIGTERM
# reaches the Hub process directly.
set -e
command="${1:-web}"
[ "$#" -gt 0 ] && shift
case "$command" in
  web) exec node bin/run.mjs web "$@" ;;
  worker) exec node bin/run.mjs worker "$@" ;;
  hub) exec node bin/run.mjs hub "$@" ;;
  migrate) exec node bin/run.mjs migrate deploy "$@" ;;
  ma2h-hub) exec node bin/ma2h-hub.js "$@" ;;
  *)
    echo "usage: web | worker | migrate | hub | ma2h-hub <command…>" >&2
    exit 2
    ;;
esac
