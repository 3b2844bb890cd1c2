package differential_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// TestReadmeQuotesTheCorpus checks that the README quotes what this test runs: the
// number of cases, against each end of the supported window of Kubernetes minors.
func TestReadmeQuotesTheCorpus(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	for _, want := range []string{
		fmt.Sprintf("all %d cases", wantCases),
		fmt.Sprintf("Kubernetes 1.%d to 1.%d", validate.OldestMinor, validate.NewestMinor),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}
