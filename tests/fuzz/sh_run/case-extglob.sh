shopt -s extglob; case foo.tar.gz in *.@(tar|tgz)?(.gz)) echo ok;;& *) echo any;& +(x)) echo fall;; esac
