printf "%(%Y-%m-%d %H:%M:%S)T|%(%s)T|%()T\n" 0 86400 -1; printf "%(%%%j%a)T\n"
