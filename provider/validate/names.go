package validate

import (
	"strings"
)

// Autonames. An object that the program names neither by metadata.name nor by
// generateName is named after its Pulumi resource name: NamePrefix turns any resource
// name Pulumi allows into the start of a valid object name, and the provider appends
// '-' and a random suffix.
//
// The rule: letters are lowercased; every character other than a-z, 0-9, '-' and '.'
// becomes '-'; each dot-separated part loses leading and trailing '-', and empty
// parts are dropped (a DNS subdomain is made of labels that start and end with an
// alphanumeric); the result is cut to leave room for the suffix within the kind's
// length limit, and trimmed again at the cut. So `webSlice` becomes `webslice`,
// `my_slice` `my-slice`, `svc.v2` stays `svc.v2`, `1st` stays `1st`, and a
// 300-character name keeps its first 244 characters.

// MaxObjectNameLength is the longest name the API server accepts for EndpointSlice and
// Endpoints objects (a DNS subdomain).
const MaxObjectNameLength = 253

// NamePrefix returns the start of an object name made from the resource name
// logical, at most maxLen characters long; "" when nothing of logical can be used.
func NamePrefix(logical string, maxLen int) string {
	mapped := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '.':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return '-'
	}, logical)
	name := labels(mapped)
	if len(name) > maxLen {
		name = labels(name[:maxLen])
	}
	return name
}

// labels joins the non-empty dot-separated parts of s, each trimmed of '-'.
func labels(s string) string {
	parts := strings.Split(s, ".")
	kept := parts[:0]
	for _, part := range parts {
		if part = strings.Trim(part, "-"); part != "" {
			kept = append(kept, part)
		}
	}
	return strings.Join(kept, ".")
}

// A name generated from metadata.generateName is the prefix, cut so that the name fits
// its length limit, and GeneratedSuffixLength random lowercase consonants and digits.
// The API server generates names of at most maxServerGeneratedName characters (it cuts
// the prefix to 58); the provider, which names an EndpointsList's items itself, cuts
// only what would exceed MaxObjectNameLength.
const (
	// GeneratedSuffixLength is the length of the random part of a generated name.
	GeneratedSuffixLength  = 5
	maxServerGeneratedName = 63
)

// GeneratedNamePrefix returns prefix cut so that it and a generated suffix fit in
// maxLength characters.
func GeneratedNamePrefix(prefix string, maxLength int) string {
	if keep := maxLength - GeneratedSuffixLength; len(prefix) > keep {
		return prefix[:keep]
	}
	return prefix
}

// ServerGeneratedName returns a name of the shape the API server generates from
// prefix; it then validates that name as it would a given one. Its suffix stands for
// any the server may pick: all of them are lowercase alphanumerics, so one is valid
// exactly when every other is.
func ServerGeneratedName(prefix string) string {
	return GeneratedNamePrefix(prefix, maxServerGeneratedName) + strings.Repeat("b", GeneratedSuffixLength)
}
