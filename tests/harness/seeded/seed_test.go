package seeded

import "testing"

func TestFromEnv(t *testing.T) {
	t.Setenv("SEED_TEST", "")
	if got := FromEnv(t, "SEED_TEST", 7); got != 7 {
		t.Errorf("unset: %d, want the default 7", got)
	}
	t.Setenv("SEED_TEST", "42")
	if got := FromEnv(t, "SEED_TEST", 7); got != 42 {
		t.Errorf("SEED_TEST=42: %d, want 42", got)
	}
}
