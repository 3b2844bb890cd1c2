package googledouble

// GrantedUserToken says whether the token endpoint granted token to the refresh token
// of user credentials minted by AuthorizedUserKey.
func (s *Server) GrantedUserToken(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.userTokens[token]
}
