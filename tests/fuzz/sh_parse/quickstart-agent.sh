#!/bin/sh
# The quickstart agent: a few commands through the box's shell, one of which
# policy refuses (reading .env).
set -x
zsh -c 'ls -1'
zsh -c 'grep -n TODO src/main.rs > todo.txt && cat todo.txt'
zsh -c 'git add todo.txt && git status --short'
zsh -c 'cat .env' || echo "agent: reading .env was refused (status $?)"
exit 0
