printf "%b\n" "a\tb\\n" "\0101\x41\u00e9\c" "tail"; printf "%s\n" "\t"
