package kube

import (
	"strings"
	"testing"
)

// Check names an item with generateName as the API server names objects: the prefix
// and 5 random characters, the prefix cut only where the name would exceed the
// server's 253 characters.
func TestGeneratedItemName(t *testing.T) {
	t.Parallel()
	long, longest := strings.Repeat("a", 100), strings.Repeat("a", 253)
	tests := []struct{ prefix, wantPrefix string }{
		{"web-", "web-"},
		{long, long},
		{longest, longest[:248]},
	}
	for _, tt := range tests {
		name, err := generatedItemName([]byte("seed"), tt.prefix)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(name, tt.wantPrefix) || len(name) != len(tt.wantPrefix)+5 ||
			strings.Trim(name[len(tt.wantPrefix):], string(generatedNameChars)) != "" {
			t.Errorf("generatedItemName(%q) = %q, want %q and 5 random characters", tt.prefix, name, tt.wantPrefix)
		}
		if again, _ := generatedItemName([]byte("seed"), tt.prefix); again != name {
			t.Errorf("generatedItemName(%q) = %q, then %q from the same seed", tt.prefix, name, again)
		}
	}
}
