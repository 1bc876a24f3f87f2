shopt -s nullglob; echo a /no/* b; shopt -u nullglob; shopt -s failglob; echo /none*; shopt -s dotglob nocaseglob globstar; echo /**
