cat <<E | wc
x
E