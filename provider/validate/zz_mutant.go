package validate

func (c *checker) noFail(p path, format string, args ...any) {}
