package webhook

import (
	"context"
	"net"
	"net/netip"
)

// defaultResolver is the system's resolver.
type defaultResolver struct{}

func (defaultResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, network, host)
}
