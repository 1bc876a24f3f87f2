a=(one two three); a[5]=six; echo ${a[@]} ${#a[@]} ${a[@]:1:2} ${!a[@]} "${a[@]/o/0}"
