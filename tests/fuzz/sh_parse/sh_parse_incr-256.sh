close'
