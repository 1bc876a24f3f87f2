a
)