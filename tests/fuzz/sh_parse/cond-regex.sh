[[ $line =~ ^([a-z]+)=(.*)$ ]] && echo "$BASH_REMATCH"
while [[ $i -lt 3 ]]; do i=$((i+1)); done
