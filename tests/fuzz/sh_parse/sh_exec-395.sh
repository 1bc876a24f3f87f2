echo|echo inner|inner|^|1
echo|echo inner|inner|^|1
