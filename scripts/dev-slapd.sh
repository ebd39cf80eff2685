#!/usr/bin/env bash
# The example LDAP directory on this machine, without Docker: Debian's slapd on
# 127.0.0.1 (--port, default 3389), in the foreground until Ctrl-C, with what
# docker-compose's OpenLDAP holds: root dc=example,dc=org, the admin
# cn=admin,dc=example,dc=org (password admin), the read-only service account
# cn=reader,dc=example,dc=org (password reader-secret, the Secret of
# examples/ldap-service-account.yaml), and the people and groups of
# deploy/ldap/bootstrap.ldif (marie in managers, paul in developers).
# docs/extauth.md says how to point the examples' AuthConfigs at it.
#
#   bash scripts/dev-slapd.sh [--port 3389]
set -euo pipefail

PORT=3389
while [ $# -gt 0 ]; do
  case "$1" in
    --port) PORT="${2:-}"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "dev-slapd: unknown argument $1 (usage: bash scripts/dev-slapd.sh [--port 3389])" >&2; exit 2 ;;
  esac
done
if ! [[ "$PORT" =~ ^[0-9]{1,5}$ ]] || [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65535 ]; then
  echo "dev-slapd: --port must be a port number (1-65535), not '$PORT'" >&2
  exit 2
fi

for tool in /usr/sbin/slapd /usr/sbin/slapadd; do
  if [ ! -x "$tool" ]; then
    echo "dev-slapd: $tool not found; install Debian's OpenLDAP: sudo apt-get install -y slapd ldap-utils (Debian, Ubuntu)" >&2
    exit 1
  fi
done
for tool in ldapadd ldapsearch; do
  if ! command -v "$tool" >/dev/null; then
    echo "dev-slapd: $tool not found; install it: sudo apt-get install -y ldap-utils" >&2
    exit 1
  fi
done

# Another directory on the port would answer the readiness check below in place of ours.
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "dev-slapd: 127.0.0.1:$PORT is already in use by another process; stop that process, or give --port another port" >&2
  exit 1
fi

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
URL="ldap://127.0.0.1:$PORT"
ADMIN_DN='cn=admin,dc=example,dc=org'
ADMIN_PW='admin'
DIR="$(mktemp -d "${TMPDIR:-/tmp}/sluice-dev-slapd-XXXXXX")"
SLAPD_PID=''
stop() {
  if [ -n "$SLAPD_PID" ]; then kill "$SLAPD_PID" 2>/dev/null || true; wait "$SLAPD_PID" 2>/dev/null || true; fi
  rm -rf "$DIR"
}
trap stop EXIT
trap 'echo "dev-slapd: stopped"; exit 0' INT TERM

mkdir "$DIR/db"
# mdb, with the memberof overlay (memberOf on each user entry) and refint, as the examples' group checks need.
cat > "$DIR/slapd.conf" <<EOF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
moduleload refint
pidfile $DIR/slapd.pid
argsfile $DIR/slapd.args
database mdb
maxsize 33554432
suffix "dc=example,dc=org"
rootdn "$ADMIN_DN"
rootpw $ADMIN_PW
directory $DIR/db
overlay memberof
overlay refint
refint_attributes memberof member
access to attrs=userPassword by self write by anonymous auth by * none
access to * by users read by * none
EOF
cat > "$DIR/base.ldif" <<EOF
dn: dc=example,dc=org
objectClass: top
objectClass: dcObject
objectClass: organization
dc: example
o: Example

dn: cn=reader,dc=example,dc=org
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: reader
userPassword: reader-secret
EOF
/usr/sbin/slapadd -f "$DIR/slapd.conf" -l "$DIR/base.ldif" >/dev/null 2>&1

# -d 0: in the foreground, logging start-up errors only.
/usr/sbin/slapd -f "$DIR/slapd.conf" -h "$URL/" -d 0 2>"$DIR/slapd.log" &
SLAPD_PID=$!
for _ in $(seq 1 100); do
  if ! kill -0 "$SLAPD_PID" 2>/dev/null; then
    SLAPD_PID=''
    echo "dev-slapd: slapd did not start:" >&2
    tail -n 20 "$DIR/slapd.log" >&2
    exit 1
  fi
  ldapsearch -x -H "$URL" -D "$ADMIN_DN" -w "$ADMIN_PW" -b dc=example,dc=org -s base >/dev/null 2>&1 && break
  sleep 0.1
done
if ! ldapsearch -x -H "$URL" -D "$ADMIN_DN" -w "$ADMIN_PW" -b dc=example,dc=org -s base >/dev/null 2>&1; then
  echo "dev-slapd: slapd does not answer on $URL after 10 s:" >&2
  tail -n 20 "$DIR/slapd.log" >&2
  exit 1
fi

# Through slapd, not slapadd, so that the memberof overlay sets memberOf on the people of each group.
ldapadd -x -H "$URL" -D "$ADMIN_DN" -w "$ADMIN_PW" -f "$ROOT/deploy/ldap/bootstrap.ldif" >/dev/null

echo "dev-slapd: ready on $URL (dc=example,dc=org: marie/marie-password in managers, paul/paul-password in developers; service account cn=reader,dc=example,dc=org / reader-secret; data in $DIR). Ctrl-C stops it and removes the data."
wait "$SLAPD_PID"
