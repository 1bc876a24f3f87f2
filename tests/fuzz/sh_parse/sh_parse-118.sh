"$y
z"