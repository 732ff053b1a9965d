package assets

import (
	"net/url"
	"strings"
)

// maxImageURI bounds an image URI: metadata JSON is anyone's to write, and
// every item of a listing carries its image.
const maxImageURI = 2048

// ImageURI is what a listing may show as an item's imageUri: raw when it is
// an http or https URL with a host and no userinfo, or an ipfs:// or ar://
// URI naming a content id, in its escaped form; "" otherwise (javascript:,
// data:, file: and every other scheme, relative references, userinfo that
// makes a link read as another host, anything over 2,048 bytes). ipfs://
// and ar:// pass as they are: the client picks its gateway, as wallets do.
func ImageURI(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > maxImageURI {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Opaque != "" {
		return ""
	}
	switch u.Scheme {
	case "http", "https", "ipfs", "ar":
		return u.String()
	}
	return ""
}
