cat <<E
