#!/usr/bin/env bash
# Installs the Debian packages the test suite needs when they are missing, so the README's
# test command works on a clean machine. git http-backend ships with git itself.
set -euo pipefail
need=()
command -v git >/dev/null || need+=(git)
# Signed settings (test/settings/settings-signing.test.ts): real ssh and OpenPGP keys.
command -v ssh-keygen >/dev/null || need+=(openssh-client)
command -v gpg >/dev/null || need+=(gnupg)
# Lanes run their agents under bubblewrap; the lane tests use the real thing.
command -v bwrap >/dev/null || need+=(bubblewrap)
# A sandbox's network relay is socat where it is installed (test/machine/sandbox-relay.test.ts runs both relays).
command -v socat >/dev/null || need+=(socat)
# test/claims/partition.test.ts builds network namespaces with ip (it skips, saying why, where it cannot).
command -v ip >/dev/null || need+=(iproute2)
# test/claims/clock-skew.test.ts runs a session under libfaketime (Debian package faketime).
[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1 ] || command -v faketime >/dev/null || need+=(faketime)
# test/status/serve.test.ts renders abcd serve's page in a real headless browser (it skips, saying why, without one).
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || need+=(chromium)
if [ -f scripts/ensure-gh.sh ]; then bash scripts/ensure-gh.sh; fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq "${need[@]}"; else echo "missing: ${need[*]} (install them)"; exit 1; fi
fi
