for w in abc a.b "" x*y [ab]; do case $w in a*c) echo 1;; *.*) echo 2;; "") echo 3;; *\**) echo 4;; \[*) echo 5;; *) echo 6;; esac; done
