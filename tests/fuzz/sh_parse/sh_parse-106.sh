echo $(cat <<E
in
E
)