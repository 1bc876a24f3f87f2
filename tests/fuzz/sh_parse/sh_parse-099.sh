cat <<-E
		a
	b
		E