if [[ -d "$dir" && ! -L "$dir" ]]; then echo ok; fi
