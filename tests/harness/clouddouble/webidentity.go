package clouddouble

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"time"
)

// WebIdentity is an OIDC identity token a role trusts (the role's trust policy names
// its issuer as federated principal and admits its audience and subject), and the
// claims STS reads from it.
type WebIdentity struct {
	// Token is the token itself, what AWS_WEB_IDENTITY_TOKEN_FILE holds.
	Token string
	// Subject (sub) and Audience (aud) are the token's claims; Provider is its issuer
	// without https:// (token.actions.githubusercontent.com).
	Subject, Audience, Provider string
}

// AddWebIdentityRole lets roleARN be assumed with AssumeRoleWithWebIdentity by id's token.
func (s *STS) AddWebIdentityRole(roleARN string, id WebIdentity) {
	s.mu.Lock()
	if s.webIdentities == nil {
		s.webIdentities = map[string]WebIdentity{}
	}
	s.webIdentities[roleARN] = id
	s.mu.Unlock()
}

// roleSessionName is the pattern STS validates RoleSessionName with (2 to 64 characters).
var roleSessionName = regexp.MustCompile(`^[\w+=,.@-]{2,64}$`)

// assumeRoleWithWebIdentity answers the unsigned AssumeRoleWithWebIdentity: the web
// identity token is the credential. A token no role trusts is InvalidIdentityToken (the
// AWS SDKs retry it, as STS also answers it when it cannot fetch the issuer's keys); a
// token the role does not trust is AccessDenied. No error repeats the token.
func (s *STS) assumeRoleWithWebIdentity(w http.ResponseWriter, r *http.Request, params url.Values) {
	role, session, token := params.Get("RoleArn"), params.Get("RoleSessionName"), params.Get("WebIdentityToken")
	switch {
	case len(role) < 20:
		s.fail(w, r, stsError{400, "ValidationError", fmt.Sprintf("1 validation error detected: Value '%s' at 'roleArn' failed to satisfy "+
			"constraint: Member must have length greater than or equal to 20", role)})
		return
	case !roleSessionName.MatchString(session):
		s.fail(w, r, stsError{400, "ValidationError", fmt.Sprintf("1 validation error detected: Value '%s' at 'roleSessionName' failed "+
			"to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*", session)})
		return
	case len(token) < 4:
		s.fail(w, r, stsError{400, "ValidationError", "1 validation error detected: Value at 'webIdentityToken' failed to satisfy " +
			"constraint: Member must have length greater than or equal to 4"})
		return
	}
	s.mu.Lock()
	trusted, roleTrusts := s.webIdentities[role]
	known := false
	for _, id := range s.webIdentities {
		known = known || id.Token == token
	}
	now := s.now()
	s.mu.Unlock()
	switch {
	case !known:
		s.fail(w, r, stsError{400, "InvalidIdentityToken", "The web identity token that was passed could not be validated by AWS. " +
			"Get a new identity token from the identity provider and then retry the request."})
		return
	case !roleTrusts || trusted.Token != token:
		s.fail(w, r, stsError{403, "AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity"})
		return
	}
	duration := time.Hour
	if v := params.Get("DurationSeconds"); v != "" {
		d, err := strconv.Atoi(v)
		if err != nil || d < 900 || d > 3600 {
			s.fail(w, r, stsError{400, "ValidationError", "The requested DurationSeconds exceeds the MaxSessionDuration set for this role."})
			return
		}
		duration = time.Duration(d) * time.Second
	}
	k := s.session(role, session, "IQoJ", now.Add(duration))
	s.count("AssumeRoleWithWebIdentity")
	s.answer(w, r, "AssumeRoleWithWebIdentity", struct {
		SubjectFromWebIdentityToken string          `xml:"SubjectFromWebIdentityToken"`
		Audience                    string          `xml:"Audience"`
		AssumedRoleUser             assumedRoleUser `xml:"AssumedRoleUser"`
		Credentials                 roleCredentials `xml:"Credentials"`
		Provider                    string          `xml:"Provider"`
	}{
		trusted.Subject, trusted.Audience,
		k.assumedRoleUser(),
		k.roleCredentials(),
		trusted.Provider,
	})
}
