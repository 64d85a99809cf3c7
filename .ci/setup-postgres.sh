# shellcheck shell=bash
# Sourced by .ci/run (as root, `set -euo pipefail`): a PostgreSQL 15 server with pgvector for the Postgres
# store tests. Idempotent and quick on a second run. What it does:
#   1. apt-get install postgresql-15 + postgresql-server-dev-15 (Debian 12 packages) if missing;
#   2. builds pgvector 0.8.x from Debian's own source package (trixie; not packaged for bookworm) with a
#      private apt sources list / state / cache, so the system's apt configuration is left untouched;
#   3. starts a throwaway cluster (initdb + pg_ctl as user postgres) on 127.0.0.1 on a free port, in
#      ${MEMSCRIBE_PG_DIR:-/tmp/memscribe-pg}, with trust auth for local TCP only;
#   4. creates database memscribe_test with the vector extension and exports MEMSCRIBE_TEST_PG_DSN.
# It never calls `exit` (it is sourced); every step fails loudly under `set -e`.

_memscribe_pg_setup() {
  local pg_bin=/usr/lib/postgresql/15/bin
  local work=/var/cache/memscribe-ci
  local data="${MEMSCRIBE_PG_DIR:-/tmp/memscribe-pg}"
  local want_vector="0.8"

  # 1. server + headers ------------------------------------------------------------------------------
  if [ ! -x "$pg_bin/initdb" ] || [ ! -f /usr/include/postgresql/15/server/postgres.h ] \
    || ! command -v make >/dev/null || ! command -v gcc >/dev/null || ! command -v dpkg-source >/dev/null; then
    echo "setup-postgres: installing postgresql-15, postgresql-server-dev-15"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      postgresql-15 postgresql-server-dev-15 make gcc dpkg-dev >/dev/null
  fi

  # 2. pgvector from Debian's source package ------------------------------------------------------------
  local control=/usr/share/postgresql/15/extension/vector.control
  if [ ! -f "$control" ] || ! grep -q "default_version = '$want_vector" "$control"; then
    echo "setup-postgres: building pgvector $want_vector.x from Debian trixie's source package"
    local mirror
    mirror="$(grep -h -o -E '^URIs:[[:space:]]*[^[:space:]]+' /etc/apt/sources.list.d/*.sources 2>/dev/null \
      | awk '{print $2}' | grep -v -- '-security' | head -n 1 || true)"
    if [ -z "$mirror" ]; then
      mirror="$(grep -h -o -E '^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?[^[:space:]]+' /etc/apt/sources.list 2>/dev/null \
        | awk '{print $NF}' | grep -v -- '-security' | head -n 1 || true)"
    fi
    mirror="${mirror:-http://deb.debian.org/debian}"
    mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" \
      >"$work/sources.list"
    local apt_opts=(
      -o "Dir::Etc::SourceList=$work/sources.list"
      -o "Dir::Etc::SourceParts=-"
      -o "Dir::State::Lists=$work/lists"
      -o "Dir::Cache=$work/cache"
      -o "APT::Sandbox::User=root"
    )
    apt-get "${apt_opts[@]}" update -qq
    rm -rf "$work/src" && mkdir -p "$work/src"
    (cd "$work/src" && apt-get "${apt_opts[@]}" source --download-only -qq pgvector >/dev/null)
    local dsc
    dsc="$(ls "$work"/src/pgvector_*.dsc | head -n 1)"
    (cd "$work/src" && dpkg-source --no-check -x "$dsc" pgvector >/dev/null)
    make -s -C "$work/src/pgvector" PG_CONFIG="$pg_bin/pg_config" >/dev/null
    make -s -C "$work/src/pgvector" PG_CONFIG="$pg_bin/pg_config" install >/dev/null
  fi

  # 3. a throwaway cluster on 127.0.0.1 ---------------------------------------------------------------
  if [ ! -f "$data/PG_VERSION" ]; then
    echo "setup-postgres: initdb in $data"
    rm -rf "$data" && mkdir -p "$data" && chown postgres:postgres "$data" && chmod 700 "$data"
    runuser -u postgres -- "$pg_bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --no-locale >/dev/null
    {
      echo "listen_addresses = '127.0.0.1'"
      echo "unix_socket_directories = '$data'"
      echo "max_connections = 200"
      echo "shared_buffers = 256MB"
      echo "maintenance_work_mem = 256MB"
      # like SQLite's WAL + synchronous=NORMAL: a crash may lose the last commits, never corrupts
      echo "synchronous_commit = off"
    } >>"$data/postgresql.conf"
  fi
  local port
  if runuser -u postgres -- "$pg_bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    port="$(cat "$data/port")"
  else
    port=54329
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
    echo "$port" >"$data/port"
    echo "setup-postgres: starting PostgreSQL on 127.0.0.1:$port"
    runuser -u postgres -- "$pg_bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
      -o "-p $port" start >/dev/null
  fi

  # 4. test database -----------------------------------------------------------------------------------
  local psql=("$pg_bin/psql" -h 127.0.0.1 -p "$port" -U postgres -v ON_ERROR_STOP=1 -q -X)
  if [ "$("${psql[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname='memscribe_test'")" != "1" ]; then
    "${psql[@]}" -c "CREATE DATABASE memscribe_test"
  fi
  "${psql[@]}" -d memscribe_test -c "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS vector"
  "${psql[@]}" -d memscribe_test -c "ALTER EXTENSION vector UPDATE" >/dev/null 2>&1 || true
  export MEMSCRIBE_TEST_PG_DSN="postgresql://postgres@127.0.0.1:$port/memscribe_test"
  echo "setup-postgres: MEMSCRIBE_TEST_PG_DSN=$MEMSCRIBE_TEST_PG_DSN (pgvector $(
    "${psql[@]}" -d memscribe_test -tAc "SELECT extversion FROM pg_extension WHERE extname='vector'"
  ))"
}
_memscribe_pg_setup
unset -f _memscribe_pg_setup
