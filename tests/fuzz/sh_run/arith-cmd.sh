for ((i=0; i<5; i++)); do (( i % 2 )) && echo odd $i; done; let "x = 4 * (2 + 3)" y=x+1; echo $x $y
