#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Lays out a fresh quickstart project under /tmp/box-quickstart (the box's
# state in /tmp/box-quickstart/state is kept between runs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=/tmp/box-quickstart
mkdir -p "$root"
rm -rf "$root/project"
mkdir -p "$root/project/src"
cp "$here/agent.sh" "$root/agent.sh"
cat > "$root/project/src/main.rs" <<'RS'
fn main() {
    // TODO: greet the user by name
    println!("hello");
    // TODO: read the config file
}
RS
printf 'API_TOKEN=not-for-agents\n' > "$root/project/.env"
printf '# quickstart project\n' > "$root/project/README.md"
git -C "$root/project" init -q
# box.toml makes .git/hooks read-only for git's leaf, and an entry must
# exist (git's template usually makes it).
mkdir -p "$root/project/.git/hooks"
git -C "$root/project" -c user.name=box -c user.email=box@localhost add README.md src/main.rs
git -C "$root/project" -c user.name=box -c user.email=box@localhost commit -q -m "initial"
