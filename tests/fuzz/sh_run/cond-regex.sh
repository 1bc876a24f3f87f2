re="^([a-z]+)-([0-9]+)$"; [[ abc-123 =~ $re ]] && echo "${BASH_REMATCH[0]} ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"; [[ x =~ ( ]]; echo $?
