// Package indexers lists the wallet items only an indexer knows, as
// assets.Sources beside the token-account discovery of package assets: the
// clients (backend/upstream/das, backend/upstream/photon) speak the
// indexers' JSON-RPC; the sources here map their answers to items.
//
// DASSource lists, from a DAS indexer (package das), what the token-account
// discovery of package assets cannot see:
//
//   - cnft: compressed NFTs (Bubblegum leaves of V1 and V2 trees:
//     compression.compressed true), owned by the wallet and not burnt, with
//     the action burn unless frozen (ownership.frozen, or a V2 leaf's flags:
//     Bubblegum refuses their burn). Burning a cnft
//     returns no rent: the leaf lives in a Merkle tree account the tree's
//     creator paid for, not in an account of the wallet. Item.Lamports is 0,
//     so a cnft burn's gross rebate is 0; it tidies the wallet, and the wallet
//     pays the network fee. The address is the asset id.
//   - fungible_asset: fungible assets DAS reports (interface FungibleAsset or
//     FungibleToken, with token_info) held in a token account of a program the
//     token-account discovery does not read (NewDASSource's
//     listedTokenPrograms, SPL Token and Token-2022 by default). Every fungible a mainnet indexer
//     reports today sits in an SPL Token or Token-2022 account, which package
//     assets already lists as token or nft with its rent and balance, so by
//     default this yields nothing: listing them again would count them twice.
//     They are listed without actions.
//
// Everything else DAS reports (uncompressed NFTs, MPL Core assets, editions) is
// left to the discovery that reads it from the cluster.
//
// PhotonSource lists a wallet's ZK-compressed token accounts (Light Protocol),
// from a Photon indexer (package photon), as zk_compressed_token items with
// no actions. Reclaiming them returns nothing: a compressed token account is a hash in a state tree
// whose account the tree's operator paid for, not a rent-exempt account of
// the wallet, so there is no rent locked in it (its lamports field is 0 in
// practice and is reported as Item.Lamports as is). Burning or decompressing
// one needs a validity proof (Photon's getValidityProof) and the Light
// compressed token program's instructions, which this service does not build;
// decompressing would even cost rent (it creates or fills an SPL token
// account). So they are listed for completeness, never offered for
// reclaiming. The item's address is the compressed account's hash, which
// changes whenever the account is spent; Decimals and UIBalance stay 0
// (Photon does not report the mint's decimals).
package indexers
