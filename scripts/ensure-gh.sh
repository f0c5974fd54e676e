#!/bin/sh
# Installs the GitHub CLI from Debian when it is missing: test/forges/login-check.test.ts runs the
# real `gh auth status` rather than a fake. Does nothing when gh is already on PATH.
set -eu

if command -v gh >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-gh: gh is missing and this is no Debian-like system; install the GitHub CLI (https://cli.github.com)" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "ensure-gh: gh is missing and installing it needs root: run apt-get install gh as root" >&2
    exit 1
  fi
fi

$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gh >/dev/null
gh --version | head -n 1
