#!/bin/sh
# The quickstart agent: a few commands through the box's shell, one of which
# policy refuses (reading .env), and two requests through the box's egress
# gateway: one the policy permits (the Debian mirror; it fails only where
# this machine has no network) and one it refuses.
set -x
zsh -c 'ls -1'
zsh -c 'grep -n TODO src/main.rs > todo.txt && cat todo.txt'
zsh -c 'git add todo.txt && git status --short'
zsh -c 'cat .env' || echo "agent: reading .env was refused (status $?)"
zsh -c 'curl -sS -i https://deb.debian.org/debian/ | head -1' ||
  echo "agent: the mirror did not answer (status $?)"
zsh -c 'curl -sS https://example.com/' ||
  echo "agent: example.com was refused (status $?)"
exit 0
