package mplcore

import (
	"github.com/reclaim-sol/reclaim/backend/chain/borsh"
)

// Plugins. An asset or collection account longer than its base layout holds
// a PluginHeaderV1 right after it (key 3, plugin_registry_offset u64), and
// at that offset a PluginRegistryV1: key 4, registry Vec<RegistryRecord
// {plugin_type u8, authority (u8 kind, 32 bytes more for Address), offset
// u64}>, then the external plugin adapters, not read. Each plugin sits at its
// record's offset: the Plugin enum's u8 discriminant (equal to its
// PluginType) and its fields.
//
// Core refuses the owner's burn when a plugin of the asset rejects it:
// FreezeDelegate or PermanentFreezeDelegate frozen, Groups holding the asset
// in a group; or a PermanentFreezeDelegate of its collection is frozen
// (programs/mpl-core/src/plugins/internal: validate_burn). Not read: external
// plugin adapters (lifecycle hooks, oracles), whose verdict depends on other
// programs and accounts; a build's simulation meets them.

// PluginType is the type of an internal plugin.
type PluginType uint8

// The plugin types whose state decides a burn.
const (
	PluginFreezeDelegate          PluginType = 1
	PluginPermanentFreezeDelegate PluginType = 5
	PluginGroups                  PluginType = 18
)

// authorityAddress is Authority::Address, the one kind followed by a key.
const authorityAddress = 3

// pluginRecord is one internal plugin of an account: its type and its data
// from the discriminant on.
type pluginRecord struct {
	typ  PluginType
	data []byte
}

// readPlugins reads the registry of the plugins that follow an account's
// base layout, which ends at off. An account that ends there has none.
func readPlugins(data []byte, off int) ([]pluginRecord, error) {
	if off >= len(data) {
		return nil, nil
	}
	h := borsh.NewReader(data[off:])
	if Key(h.U8()) != KeyPluginHeaderV1 {
		return nil, ErrLayout
	}
	at := h.U64()
	if h.Err() != nil || at >= uint64(len(data)) {
		return nil, ErrLayout
	}
	r := borsh.NewReader(data[at:])
	if Key(r.U8()) != KeyPluginRegistryV1 {
		return nil, ErrLayout
	}
	n := r.U32()
	if r.Err() != nil || uint64(n) > uint64(len(data)) {
		return nil, ErrLayout
	}
	out := make([]pluginRecord, 0, n)
	for range n {
		typ := PluginType(r.U8())
		if r.U8() == authorityAddress {
			r.Skip(32)
		}
		pos := r.U64()
		if r.Err() != nil || pos >= uint64(len(data)) || PluginType(data[pos]) != typ {
			return nil, ErrLayout
		}
		out = append(out, pluginRecord{typ: typ, data: data[pos:]})
	}
	return out, nil
}

// frozen reports a frozen FreezeDelegate or PermanentFreezeDelegate.
func (p pluginRecord) frozen() bool {
	return (p.typ == PluginFreezeDelegate || p.typ == PluginPermanentFreezeDelegate) && len(p.data) > 1 && p.data[1] == 1
}

// grouped reports a Groups plugin holding its account in a group.
func (p pluginRecord) grouped() bool {
	return p.typ == PluginGroups && borsh.NewReader(p.data[1:]).U32() > 0
}

// burnVerdict is what an account's plugins say of a burn.
type burnVerdict struct {
	// frozen: a freeze plugin is frozen; grouped: a Groups plugin holds the
	// account in a group.
	frozen, grouped bool
}

func verdictOf(plugins []pluginRecord) burnVerdict {
	var v burnVerdict
	for _, p := range plugins {
		v.frozen = v.frozen || p.frozen()
		v.grouped = v.grouped || p.grouped()
	}
	return v
}
