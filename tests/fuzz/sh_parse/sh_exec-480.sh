hi $HOME
