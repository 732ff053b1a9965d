package metaplex

// Closed is what a BurnV1 closes, read from the chain just before it.
type Closed struct {
	// Lamports of the token account, the (master or print) edition, the
	// token record (pNFTs; 0 otherwise) and the edition marker (prints whose
	// marker closes, see MarkerClosesOnBurn; 0 otherwise).
	Token, Edition, TokenRecord, EditionMarker uint64
	// MetadataLamports and MetadataSize (data length) of the metadata account.
	MetadataLamports uint64
	MetadataSize     uint64
}

// Refund is the lamports BurnV1 moves to the holder: every closed account
// in full, except the metadata, which returns only the rent-exempt minimum
// of its size (minimumBalance, from the cluster's Rent sysvar) and keeps the
// rest (Metaplex's fees) in a 1-byte stub. ok is false when the metadata
// holds less than that minimum: the program then fails the whole burn.
func Refund(c Closed, minimumBalance func(size uint64) uint64) (lamports uint64, ok bool) {
	metadata := minimumBalance(c.MetadataSize)
	if c.MetadataLamports < metadata {
		return 0, false
	}
	return c.Token + c.Edition + c.TokenRecord + c.EditionMarker + metadata, true
}
