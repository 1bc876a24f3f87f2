touch /f1 /fA /f_; echo /f[[:digit:]] /f[[:upper:]] /f[[:punct:]] /f[^0-9]
