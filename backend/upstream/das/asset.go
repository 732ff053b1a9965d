package das

import (
	"context"
	"encoding/json"
	"fmt"
)

// Asset is the part of a DAS asset this service reads.
type Asset struct {
	// Interface is DAS's classification: V1_NFT, ProgrammableNFT,
	// FungibleAsset, FungibleToken, MplCoreAsset, ...
	Interface   string      `json:"interface"`
	ID          string      `json:"id"`
	Content     Content     `json:"content"`
	Compression Compression `json:"compression"`
	Grouping    []Group     `json:"grouping"`
	Ownership   Ownership   `json:"ownership"`
	Burnt       bool        `json:"burnt"`
	Mutable     bool        `json:"mutable"`
	// TokenInfo is set on fungibles when showFungible is asked.
	TokenInfo *TokenInfo `json:"token_info,omitempty"`
}

// Content is the asset's off-chain metadata, as the indexer cached it.
type Content struct {
	JSONURI  string `json:"json_uri"`
	Files    []File `json:"files"`
	Metadata struct {
		Name   string `json:"name"`
		Symbol string `json:"symbol"`
	} `json:"metadata"`
	Links struct {
		Image string `json:"image"`
	} `json:"links"`
}

// File is one entry of content.files.
type File struct {
	URI    string `json:"uri"`
	CDNURI string `json:"cdn_uri"`
	MIME   string `json:"mime"`
}

// Compression is the Bubblegum leaf of a compressed asset.
type Compression struct {
	Eligible    bool   `json:"eligible"`
	Compressed  bool   `json:"compressed"`
	DataHash    string `json:"data_hash"`
	CreatorHash string `json:"creator_hash"`
	AssetHash   string `json:"asset_hash"`
	Tree        string `json:"tree"`
	Seq         uint64 `json:"seq"`
	LeafID      uint64 `json:"leaf_id"`
	// CollectionHash, AssetDataHash and Flags are set only on Bubblegum V2
	// leaves (LeafSchemaV2).
	CollectionHash *string `json:"collection_hash,omitempty"`
	AssetDataHash  *string `json:"asset_data_hash,omitempty"`
	Flags          *uint8  `json:"flags,omitempty"`
}

// IsV2 reports a Bubblegum V2 leaf, which burns with burnV2, not burn.
func (c Compression) IsV2() bool {
	return c.CollectionHash != nil || c.AssetDataHash != nil || c.Flags != nil
}

// Flags of a V2 leaf (LeafSchemaV2Flags) that freeze it: Bubblegum refuses
// to burn a leaf frozen by its owner's delegate or by a permanent delegate.
const (
	FlagFrozenByOwner        = 1
	FlagFrozenByPermDelegate = 2
	FlagNonTransferable      = 4
	flagsFrozen              = FlagFrozenByOwner | FlagFrozenByPermDelegate
)

// Frozen reports a V2 leaf whose flags freeze it.
func (c Compression) Frozen() bool { return c.Flags != nil && *c.Flags&flagsFrozen != 0 }

// Group is one entry of grouping; a collection is group_key "collection".
type Group struct {
	Key   string `json:"group_key"`
	Value string `json:"group_value"`
	// Verified is sent only when unverified collections are asked for.
	Verified           *bool `json:"verified,omitempty"`
	CollectionMetadata *struct {
		Name string `json:"name"`
	} `json:"collection_metadata,omitempty"`
}

// Ownership of an asset.
type Ownership struct {
	Frozen    bool    `json:"frozen"`
	Delegated bool    `json:"delegated"`
	Delegate  *string `json:"delegate"`
	Owner     string  `json:"owner"`
}

// TokenInfo describes a fungible holding.
type TokenInfo struct {
	Symbol                 string          `json:"symbol"`
	Balance                json.Number     `json:"balance"`
	Supply                 json.Number     `json:"supply"`
	Decimals               uint8           `json:"decimals"`
	TokenProgram           string          `json:"token_program"`
	AssociatedTokenAddress string          `json:"associated_token_address"`
	PriceInfo              json.RawMessage `json:"price_info,omitempty"`
}

// AssetProof is the Merkle proof of a compressed asset's leaf.
type AssetProof struct {
	Root string `json:"root"`
	// Proof lists every sibling from the leaf up, max depth entries, canopy
	// included.
	Proof     []string `json:"proof"`
	NodeIndex uint64   `json:"node_index"`
	Leaf      string   `json:"leaf"`
	TreeID    string   `json:"tree_id"`
}

// AssetPage is one page of getAssetsByOwner.
type AssetPage struct {
	Total int     `json:"total"`
	Limit int     `json:"limit"`
	Page  int     `json:"page"`
	Items []Asset `json:"items"`
}

type displayOptions struct {
	ShowFungible           bool `json:"showFungible,omitempty"`
	ShowCollectionMetadata bool `json:"showCollectionMetadata,omitempty"`
}

type byOwnerParams struct {
	OwnerAddress   string         `json:"ownerAddress"`
	Page           int            `json:"page"`
	Limit          int            `json:"limit"`
	DisplayOptions displayOptions `json:"displayOptions"`
}

// AssetsByOwner reads every asset of owner, fungibles and collection names
// included, PageLimit per page until a short page. More than MaxPages pages
// is an error rather than a silently partial list.
func (c *Client) AssetsByOwner(ctx context.Context, owner string) ([]Asset, error) {
	var all []Asset
	for page := 1; page <= c.ep.MaxPages; page++ {
		var p AssetPage
		params := byOwnerParams{
			OwnerAddress: owner, Page: page, Limit: PageLimit,
			DisplayOptions: displayOptions{ShowFungible: true, ShowCollectionMetadata: true},
		}
		if err := c.call(ctx, "getAssetsByOwner", params, &p); err != nil {
			return nil, fmt.Errorf("page %d: %w", page, err)
		}
		all = append(all, p.Items...)
		if len(p.Items) < PageLimit {
			return all, nil
		}
	}
	return nil, fmt.Errorf("das getAssetsByOwner: more than %d pages of %d assets", c.ep.MaxPages, PageLimit)
}

// Asset reads one asset by id.
func (c *Client) Asset(ctx context.Context, id string) (*Asset, error) {
	var a Asset
	if err := c.call(ctx, "getAsset", map[string]string{"id": id}, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// AssetProof reads the Merkle proof of a compressed asset.
func (c *Client) AssetProof(ctx context.Context, id string) (*AssetProof, error) {
	var p AssetProof
	if err := c.call(ctx, "getAssetProof", map[string]string{"id": id}, &p); err != nil {
		return nil, err
	}
	return &p, nil
}
