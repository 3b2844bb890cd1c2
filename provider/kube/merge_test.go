package kube

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMerge3KeepsOthersKeysAndDropsOursRemoved(t *testing.T) {
	t.Parallel()
	live := map[string]string{"ours": "1", "dropped": "x", "theirs": "t"}
	old := map[string]string{"ours": "1", "dropped": "x"}
	desired := map[string]string{"ours": "2", "added": "a"}
	want := map[string]string{"ours": "2", "added": "a", "theirs": "t"}
	if diff := cmp.Diff(want, merge3(live, old, desired)); diff != "" {
		t.Errorf("merge3 (-want +got):\n%s", diff)
	}
	if got := merge3(nil, map[string]string{"a": "1"}, nil); got != nil {
		t.Errorf("merge3 of nothing left = %v, want nil (no empty map written)", got)
	}
}
