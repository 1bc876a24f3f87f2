x
cat <<'E'
EOF
