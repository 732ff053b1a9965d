// Package assets discovers the reclaimable items of a wallet on the cluster:
// its token accounts under SPL Token and Token-2022, their mints and on-chain
// metadata, classified as the contract's WalletItemTypes with the actions the
// token program would accept. It reads the cluster through the small RPC
// interface it declares; it knows nothing of HTTP or storage.
package assets
