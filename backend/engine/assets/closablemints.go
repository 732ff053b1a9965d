package assets

import (
	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// Token-2022 mints the wallet can close (mint, action close): a mint with
// the MintCloseAuthority extension whose close authority is the wallet and
// whose supply is 0. CloseAccount on the mint returns every lamport it
// holds to the wallet. The listing looks among the Token-2022 mints whose
// mint authority is the wallet, the scan excess rent already makes (the
// close authority sits at no fixed offset a memcmp could match: it is a TLV
// entry after any other extensions); a mint whose mint authority was
// revoked or given to another key is not found, but a build that names it
// resolves it. A closable mint offers no excess_rent item: the close
// returns its excess too.

// closableMint reports whether m, a mint of program, is one wallet can
// close now.
func closableMint(program solana.PublicKey, m spltoken.Mint, wallet solana.PublicKey) bool {
	return program.Equals(solana.Token2022ProgramID) && m.Supply == 0 && m.CloseAuthority != nil && m.CloseAuthority.Equals(wallet)
}

// closableMintOf is the mint at address (of program, with lamports and
// data) as a mint item of wallet; reason says why it is none.
func closableMintOf(address, program solana.PublicKey, lamports uint64, d []byte, wallet solana.PublicKey) (Item, string) {
	m, err := spltoken.ParseMint(d)
	switch {
	case !program.Equals(solana.Token2022ProgramID) || err != nil:
		return Item{}, reasonNotMint
	case m.CloseAuthority == nil || !m.CloseAuthority.Equals(wallet):
		return Item{}, reasonOtherCloseAuthority
	case m.Supply != 0:
		return Item{}, reasonMintHasSupply
	}
	it := newAccountItem(TypeMint, address, wallet, program, lamports)
	it.Mint, it.Decimals = address, m.Decimals
	if md := displayMetadata(m.Metadata); md != nil {
		it.Name, it.Symbol, it.URI = md.name, md.symbol, md.uri
	}
	return it, ""
}
