printf -v out "%05d-%s" 42 x; echo "$out"; printf "%.3s|%.0f|%5%|%i\n" abcdef 2.5 7
