cat <<E
E