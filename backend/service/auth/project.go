package auth

// SessionProject returns the project of a session token this service
// signed, whether or not it has expired or its API key was revoked. It is no
// credential (Authenticate decides that): the API's CORS layer uses it to
// pick the project whose browser origins apply before the request is
// authenticated, so that a page on an allowed origin can read the 401 of an
// expired session and fetch a new token.
func (a *Authenticator) SessionProject(token string) (string, bool) {
	c, ok := a.verify(token)
	if !ok || c.Project == "" {
		return "", false
	}
	return c.Project, true
}
