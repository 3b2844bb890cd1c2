package validate

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// A resource's inputs or state decoded (Decode) and encoded again (Encode) are the
// same property values: null and unknown values included, at any depth, under keys of
// any shape (secrets are the caller's to put back, by field).
func TestDecodeEncodeRoundTrip(t *testing.T) {
	t.Parallel()
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 44)) //nolint:gosec // seeded on purpose: every run checks the same values
		m := randomMap(r, 0, true)
		back := EncodeMap(DecodeMap(m))
		if !back.Equals(m) {
			t.Fatalf("seed %d: %v\nencoded again as %v", seed, m, back)
		}
	}
}

// keyShapes are the keys of the generated maps: plain, camelCase, and the shapes a
// path quotes (dots, slashes, brackets, quotes).
var keyShapes = []string{"name", "addressType", "app.kubernetes.io/name", "a.b", "x[0]", `say "hi"`, "k"}

func randomMap(r *rand.Rand, depth int, inSecret bool) property.Map {
	out := map[string]property.Value{}
	for range r.IntN(4) {
		out[keyShapes[r.IntN(len(keyShapes))]] = randomValue(r, depth+1, inSecret)
	}
	return property.NewMap(out)
}

// randomValue is a value of any kind; a secret is never inside another (the engine
// keeps the outer one).
func randomValue(r *rand.Rand, depth int, inSecret bool) property.Value {
	secret := !inSecret && r.IntN(5) == 0
	var v property.Value
	switch kind := r.IntN(8); {
	case kind == 0:
		v = property.New(property.Null)
	case kind == 1:
		v = property.New(property.Computed)
	case kind == 2:
		v = property.New(fmt.Sprintf("s%d", r.IntN(100)))
	case kind == 3:
		v = property.New(float64(r.IntN(70000)) / float64(1+3*r.IntN(2))) // whole numbers, and quarters
	case kind == 4:
		v = property.New(r.IntN(2) == 0)
	case kind == 5 && depth < 4:
		elems := make([]property.Value, r.IntN(3))
		for i := range elems {
			elems[i] = randomValue(r, depth+1, inSecret || secret)
		}
		v = property.New(elems)
	case depth < 4:
		v = property.New(randomMap(r, depth, inSecret || secret))
	default:
		v = property.New("leaf")
	}
	return v.WithSecret(secret)
}

// Known leaves out what Plain leaves out: the values not known yet, and null entries
// of maps.
func TestKnownIsPlain(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 45)) //nolint:gosec // seeded on purpose: every run checks the same values
		m := randomMap(r, 0, false)
		if got, want := fmt.Sprint(KnownMap(DecodeMap(m))), fmt.Sprint(PlainMap(m)); got != want {
			t.Fatalf("seed %d: Known gives %s, Plain %s", seed, got, want)
		}
		if got, want := HasComputed(DecodeMap(m)), property.New(m).HasComputed(); got != want {
			t.Fatalf("seed %d: HasComputed %v, want %v", seed, got, want)
		}
	}
}
