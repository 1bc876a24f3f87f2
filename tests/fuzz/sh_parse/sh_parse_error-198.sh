cat <<-E
E 
