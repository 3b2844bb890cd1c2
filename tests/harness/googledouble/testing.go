package googledouble

import "testing"

// StartT starts a double for one test, serving the objects of the fixture files
// given (see ReadFixture), and closes it when the test ends.
func StartT(t testing.TB, token string, fixtures ...string) *Server {
	t.Helper()
	loaded := make([]Fixture, len(fixtures))
	for i, path := range fixtures {
		f, err := ReadFixture(path)
		if err != nil {
			t.Fatal(err)
		}
		loaded[i] = f
	}
	s, err := Start(token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	for _, f := range loaded {
		s.Load(f)
	}
	return s
}
