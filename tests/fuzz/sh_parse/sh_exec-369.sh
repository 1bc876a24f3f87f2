rm|rm x|x|^|1
