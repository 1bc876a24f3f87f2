# comment
