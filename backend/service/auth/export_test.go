package auth

// OnRefreshed has f called each time a key read again in the background
// has landed in memory.
func OnRefreshed(a *Authenticator, f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refreshed = f
}
