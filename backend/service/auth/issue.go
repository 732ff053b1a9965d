package auth

// Mint returns a fresh API key, its display prefix and its keyed hash: the
// key is shown once, only the hash is stored. The command line and the
// console both issue keys through it (project.Service).
func (h *Hasher) Mint() (key, prefix string, hash []byte, err error) {
	key, prefix, err = NewAPIKey()
	if err != nil {
		return "", "", nil, err
	}
	return key, prefix, h.Hash(key), nil
}
