// Package google implements the provider's Google Cloud lookup functions with Google's
// Go API libraries. Clients and credentials are resolved on first use, so a program
// that calls no lookup never needs Google credentials.
package google
