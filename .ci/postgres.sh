# shellcheck shell=bash
# Sourced by .ci/run (bash, set -euo pipefail already on): provides a
# throwaway PostgreSQL server for the pgstore tests and exports its DSN as
# MNEMOBANK_PG_DSN.
#
#   - If MNEMOBANK_PG_DSN is already set, that server is used as is.
#   - If initdb/pg_ctl are missing, PostgreSQL is installed from the
#     distribution's packages (Debian/Ubuntu: apt-get install postgresql).
#   - A new cluster is created in a temp dir and started on a free loopback
#     port, owned by a non-root user when we run as root (PostgreSQL refuses
#     to run as root): the "postgres" system user, created if missing.
#   - An EXIT trap, chained with any trap already set, stops the server and
#     removes the temp dir.
#
# Every name defined here starts with _pg_ so nothing of the caller's is
# overwritten.

_pg_log() { printf 'postgres.sh: %s\n' "$*" >&2; }

# _pg_find_bindir prints the directory holding initdb and pg_ctl, or nothing.
# Debian keeps them out of PATH, in /usr/lib/postgresql/<version>/bin.
_pg_find_bindir() {
  local d v
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    d=$(dirname "$(readlink -f "$(command -v pg_ctl)")")
    if [ -x "$d/initdb" ] && [ -x "$d/postgres" ]; then
      printf '%s\n' "$d"; return 0
    fi
  fi
  for v in $(ls /usr/lib/postgresql 2>/dev/null | sort -rn); do
    d=/usr/lib/postgresql/$v/bin
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ]; then
      printf '%s\n' "$d"; return 0
    fi
  done
  return 0
}

_pg_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo="sudo"
    else
      _pg_log "PostgreSQL is not installed and we are not root (no sudo): install the postgresql package, or set MNEMOBANK_PG_DSN to a server"
      return 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    _pg_log "PostgreSQL is not installed and apt-get is missing: install PostgreSQL (initdb, pg_ctl) yourself, or set MNEMOBANK_PG_DSN to a server"
    return 1
  fi
  _pg_log "installing PostgreSQL from the distribution's packages"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
}

# _pg_as_owner runs a command as the cluster's owner, from the temp dir (the
# owner may not be allowed into the caller's working directory).
_pg_as_owner() {
  if [ -z "$_pg_owner" ]; then
    (cd "$_pg_dir" && "$@")
  elif command -v runuser >/dev/null 2>&1; then
    (cd "$_pg_dir" && runuser -u "$_pg_owner" -- "$@")
  else
    # su needs a shell command line: quote every argument.
    (cd "$_pg_dir" && su -s /bin/sh "$_pg_owner" -c "$(printf '%q ' "$@")")
  fi
}

# _pg_port_in_use reports whether something accepts connections on port.
_pg_port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

_pg_stop() {
  if [ -n "${_pg_dir:-}" ] && [ -d "$_pg_dir" ]; then
    if [ -f "$_pg_dir/data/postmaster.pid" ]; then
      _pg_as_owner "$_pg_bindir/pg_ctl" -D "$_pg_dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$_pg_dir"
  fi
}

# _pg_on_exit stops the server, then runs the EXIT trap that was set before
# ours, with $? as it was.
_pg_on_exit() {
  local rc=$?
  set +e # we are exiting: clean up as much as possible
  _pg_stop
  if [ -n "${_pg_prev_exit:-}" ]; then
    (exit "$rc")
    eval "$_pg_prev_exit"
  fi
}

_pg_start() {
  _pg_bindir=$(_pg_find_bindir)
  if [ -z "$_pg_bindir" ]; then
    _pg_install
    _pg_bindir=$(_pg_find_bindir)
    if [ -z "$_pg_bindir" ]; then
      _pg_log "installed the postgresql package but found no initdb/pg_ctl in PATH or /usr/lib/postgresql/*/bin"
      return 1
    fi
  fi
  _pg_log "using $("$_pg_bindir/postgres" --version) from $_pg_bindir"

  _pg_owner=""
  if [ "$(id -u)" -eq 0 ]; then
    _pg_owner=postgres
    if ! id "$_pg_owner" >/dev/null 2>&1; then
      useradd --system --user-group --no-create-home --shell /usr/sbin/nologin "$_pg_owner"
    fi
  fi

  _pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/mnemobank-pg.XXXXXX")
  # Chain our cleanup with the EXIT trap already set, if any. `trap -p EXIT`
  # prints `trap -- 'cmd' EXIT` with cmd quoted for reuse: evaluate it as the
  # arguments of a function that keeps cmd.
  _pg_prev_exit=""
  local prev
  prev=$(trap -p EXIT)
  if [ -n "$prev" ]; then
    _pg_keep_trap() { _pg_prev_exit=$2; }
    eval "_pg_keep_trap ${prev#trap }"
  fi
  trap _pg_on_exit EXIT
  # Without a trap for them, INT and TERM kill bash without running EXIT.
  [ -n "$(trap -p INT)" ] || trap 'exit 130' INT
  [ -n "$(trap -p TERM)" ] || trap 'exit 143' TERM

  chmod 0700 "$_pg_dir"
  if [ -n "$_pg_owner" ]; then chown "$_pg_owner:" "$_pg_dir"; fi

  _pg_as_owner "$_pg_bindir/initdb" -D "$_pg_dir/data" -U postgres --auth=trust \
    --encoding=UTF8 --locale=C --no-sync >"$_pg_dir/initdb.log" 2>&1 || {
    cat "$_pg_dir/initdb.log" >&2; _pg_log "initdb failed"; return 1; }

  # A free port: probe random ones; if another process takes it between the
  # probe and the start, pg_ctl fails and we try the next.
  local attempt port=""
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    port=$((20000 + RANDOM % 30000))
    if _pg_port_in_use "$port"; then continue; fi
    # fsync=off: a throwaway cluster for tests need not survive a power cut.
    if _pg_as_owner "$_pg_bindir/pg_ctl" -D "$_pg_dir/data" -l "$_pg_dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories='$_pg_dir' -c fsync=off -c max_connections=200" \
      start >/dev/null 2>&1; then
      break
    fi
    port=""
  done
  if [ -z "$port" ]; then
    cat "$_pg_dir/server.log" >&2 2>/dev/null || true
    _pg_log "could not start PostgreSQL on a free loopback port"
    return 1
  fi

  # The test database's default collation is ICU "en", not byte order (the
  # cluster's is C), so the pgstore tests show that its COLLATE "C" columns,
  # not the server's locale, give List its byte order: under "en",
  # "a_b" < "a-b" < "a/b" < "ab" < "aB"; in bytes "a-b" < "a/b" < "aB" <
  # "a_b" < "ab". ICU database collations need PostgreSQL 15 built with ICU
  # (Debian's is); without them we fall back to a C database and say so.
  if "$_pg_bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres --template=template0 \
    --locale-provider=icu --icu-locale=en mnemobank_test 2>"$_pg_dir/createdb.log"; then
    _pg_log "test database mnemobank_test has collation ICU en (not byte order)"
  else
    cat "$_pg_dir/createdb.log" >&2
    _pg_log "could not create the test database with an ICU collation; using the cluster's C locale, so the tests cannot show that key order does not depend on the database's collation"
    "$_pg_bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres mnemobank_test
  fi
  export MNEMOBANK_PG_DSN="postgres://postgres@127.0.0.1:$port/mnemobank_test?sslmode=disable"
  _pg_log "PostgreSQL running in $_pg_dir; MNEMOBANK_PG_DSN=$MNEMOBANK_PG_DSN"
}

if [ -n "${MNEMOBANK_PG_DSN:-}" ]; then
  _pg_log "MNEMOBANK_PG_DSN is already set: using that server"
else
  _pg_start
fi
