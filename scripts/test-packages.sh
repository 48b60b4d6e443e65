#!/usr/bin/env bash
# Debian packages the tests use (npm test's pretest): the stock sqlite3 shell (a served database must open
# in it), openssl (test certificates for SMTP over TLS), chromium (the pages in a real browser) and postgresql
# (the second pass of the end-to-end tests runs on a throw-away PostgreSQL cluster; its server binaries, not a
# running service, are what the tests use), and dovecot-imapd (replies read from an IMAP mailbox: a throw-away
# dovecot, started by the tests on a configuration of their own). Installs what is missing with apt-get when it can (root, apt-get present); otherwise says exactly
# what to install and fails.
set -euo pipefail
need=()
command -v sqlite3 >/dev/null 2>&1 || need+=(sqlite3)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
[ -x /usr/sbin/dovecot ] || need+=(dovecot-imapd)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && command -v psql >/dev/null 2>&1 || need+=(postgresql)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "tests: installing ${need[*]} (Debian packages the tests use)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  echo "tests need the Debian packages: ${need[*]}; install them with: sudo apt-get install ${need[*]}" >&2
  exit 1
fi
