printf "%s=%d\n" a 1 b 2 c; printf "%d\n" 0x10 010 "'A" 1.5 abc 99999999999999999999
