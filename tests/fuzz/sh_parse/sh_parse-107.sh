cat <<E
a
E