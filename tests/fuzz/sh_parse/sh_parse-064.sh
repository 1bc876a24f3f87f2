case x in
a)
b
;;
esac