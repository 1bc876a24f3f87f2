while true
