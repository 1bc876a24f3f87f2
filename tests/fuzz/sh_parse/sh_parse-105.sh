cat <<E; echo $(
z
)
body
E