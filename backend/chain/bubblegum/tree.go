package bubblegum

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// TreeHeaderSize is the bytes before a concurrent Merkle tree's nodes: account
// type, header version, max buffer size, max depth, authority, creation slot,
// padding.
const TreeHeaderSize = 56

// MaxTreeDepth is the deepest tree SPL Account Compression creates.
const MaxTreeDepth = 30

// Tree is what a burn needs of a concurrent Merkle tree account.
type Tree struct {
	MaxDepth      int
	MaxBufferSize int
	// CanopyDepth levels of nodes are kept on chain: the last CanopyDepth
	// proof nodes are left out of an instruction.
	CanopyDepth int
	// V2 is a Bubblegum V2 tree: owned by MPL Account Compression, whose
	// header has the same layout. ParseTree leaves it false; the account's
	// owner tells.
	V2 bool
}

// ErrNotTree is returned for an account that is not a concurrent Merkle tree
// (header version 0, as SPL and MPL Account Compression both write it).
var ErrNotTree = errors.New("not a concurrent merkle tree account")

// ParseTree reads a tree from the first TreeHeaderSize bytes of its account
// data and the account's whole size (the canopy is what follows the tree, so
// its depth follows from the size).
func ParseTree(header []byte, accountSize int) (Tree, error) {
	if len(header) < TreeHeaderSize || header[0] != 1 || header[1] != 0 {
		return Tree{}, ErrNotTree
	}
	t := Tree{
		MaxBufferSize: int(binary.LittleEndian.Uint32(header[2:6])),
		MaxDepth:      int(binary.LittleEndian.Uint32(header[6:10])),
	}
	if t.MaxDepth < 1 || t.MaxDepth > MaxTreeDepth || t.MaxBufferSize < 1 || t.MaxBufferSize > 1<<11 {
		return Tree{}, fmt.Errorf("%w: depth %d, buffer %d", ErrNotTree, t.MaxDepth, t.MaxBufferSize)
	}
	canopy := accountSize - TreeHeaderSize - treeSize(t.MaxDepth, t.MaxBufferSize)
	if canopy < 0 || canopy%32 != 0 {
		return Tree{}, fmt.Errorf("%w: %d bytes for depth %d, buffer %d", ErrNotTree, accountSize, t.MaxDepth, t.MaxBufferSize)
	}
	// A canopy of depth d holds 2^(d+1) - 2 nodes.
	nodes := canopy/32 + 2
	if nodes&(nodes-1) != 0 {
		return Tree{}, fmt.Errorf("%w: canopy of %d nodes", ErrNotTree, canopy/32)
	}
	t.CanopyDepth = bits.TrailingZeros(uint(nodes)) - 1
	if t.CanopyDepth > t.MaxDepth {
		return Tree{}, fmt.Errorf("%w: canopy depth %d over depth %d", ErrNotTree, t.CanopyDepth, t.MaxDepth)
	}
	return t, nil
}

// AccountSize is the size of a tree account: as spl-account-compression's
// getMerkleTreeSize.
func AccountSize(maxDepth, maxBufferSize, canopyDepth int) int {
	return TreeHeaderSize + treeSize(maxDepth, maxBufferSize) + 32*max((1<<(canopyDepth+1))-2, 0)
}

// treeSize is ConcurrentMerkleTree<depth, buffer>: sequence number, active
// index, buffer size, the change logs (root, path, index with padding), and
// the rightmost path (proof, leaf, index, padding).
func treeSize(depth, buffer int) int {
	changeLog := 32 + 32*depth + 8
	path := 32*depth + 32 + 8
	return 24 + buffer*changeLog + path
}
