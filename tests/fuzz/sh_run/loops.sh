n=0; while (( n < 20 )); do n=$((n+1)); [[ $n == *5 ]] && continue; done; until true; do :; done; echo $n
