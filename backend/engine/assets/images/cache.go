package images

import (
	"container/list"
	"sync"
	"time"
)

// cache is a bounded LRU of URI -> image ("" for a failure) with expiry.
type cache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recently used
	items map[string]*list.Element
}

type entry struct {
	uri, image string
	expires    time.Time
}

func newCache(size int) *cache {
	return &cache{max: size, order: list.New(), items: map[string]*list.Element{}}
}

func (c *cache) get(uri string, now time.Time) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.items[uri]
	if el == nil {
		return "", false
	}
	e := entryOf(el)
	if !now.Before(e.expires) {
		c.order.Remove(el)
		delete(c.items, uri)
		return "", false
	}
	c.order.MoveToFront(el)
	return e.image, true
}

func (c *cache) put(uri, image string, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.items[uri]; el != nil {
		el.Value = &entry{uri, image, expires}
		c.order.MoveToFront(el)
		return
	}
	c.items[uri] = c.order.PushFront(&entry{uri, image, expires})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, entryOf(last).uri)
	}
}

// entryOf is the entry an element of c.order holds: the cache puts nothing
// else there.
func entryOf(el *list.Element) *entry {
	return el.Value.(*entry) //nolint:forcetypeassert // c.order holds only *entry (get and put)
}

func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
