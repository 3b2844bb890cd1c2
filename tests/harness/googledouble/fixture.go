package googledouble

import (
	"encoding/json"
	"fmt"
	"os"
)

// Fixture is a set of objects to serve, as read from a JSON file by the google-double
// command.
type Fixture struct {
	ImportDataFiles []FixtureImportDataFile `json:"importDataFiles,omitempty"`
	Policies        []FixturePolicy         `json:"policies,omitempty"`
}

// FixtureImportDataFile places an import data file under its parents.
type FixtureImportDataFile struct {
	Project   string         `json:"project"`
	Location  string         `json:"location"`
	ImportJob string         `json:"importJob"`
	ID        string         `json:"id"`
	File      ImportDataFile `json:"file"`
}

// FixturePolicy places an IAM policy on a proxy configuration.
type FixturePolicy struct {
	Organization  string `json:"organization"`
	PartnerTenant string `json:"partnerTenant"`
	ProxyConfig   string `json:"proxyConfig"`
	Policy        Policy `json:"policy"`
}

// Load stores every object of the fixture.
func (s *Server) Load(f Fixture) {
	for _, d := range f.ImportDataFiles {
		s.AddImportDataFile(d.Project, d.Location, d.ImportJob, d.ID, d.File)
	}
	for _, p := range f.Policies {
		s.SetPolicy(p.Organization, p.PartnerTenant, p.ProxyConfig, p.Policy)
	}
}

// ReadFixture reads a fixture from a JSON file; unknown fields are errors, so a typo in
// a demo's fixture does not go unnoticed.
func ReadFixture(path string) (Fixture, error) {
	var f Fixture
	file, err := os.Open(path) //nolint:gosec // the path is the operator's own fixture file
	if err != nil {
		return f, fmt.Errorf("googledouble: reading fixture: %w", err)
	}
	defer func() { _ = file.Close() }()
	dec := json.NewDecoder(file)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("googledouble: decoding fixture %s: %w", path, err)
	}
	return f, nil
}
