package registry

import (
	"io"
	"k8s.io/apimachinery/pkg/types"
	"sync"

	"github.com/google/uuid"
)

// IDs makes the server's random identifiers: object uids and the suffixes
// of generated names. The randomness is injected, so step mode (a seeded
// reader) names objects the same way every run.
type IDs struct {
	mu sync.Mutex
	r  io.Reader
}

// NewIDs reads randomness from r (crypto/rand.Reader in live mode).
func NewIDs(r io.Reader) *IDs { return &IDs{r: r} }

// UID returns a new random (version 4) UUID.
func (g *IDs) UID() types.UID {
	g.mu.Lock()
	defer g.mu.Unlock()
	u, err := uuid.NewRandomFromReader(g.r)
	if err != nil {
		panic("registry: random source failed: " + err.Error())
	}
	return types.UID(u.String())
}

// nameAlphabet is the alphabet of generated name suffixes in Kubernetes:
// no vowels (no words) and no look-alike characters.
const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// Suffix returns n random characters for generateName.
func (g *IDs) Suffix(n int) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	buf := make([]byte, n)
	if _, err := io.ReadFull(g.r, buf); err != nil {
		panic("registry: random source failed: " + err.Error())
	}
	for i, b := range buf {
		buf[i] = nameAlphabet[int(b)%len(nameAlphabet)]
	}
	return string(buf)
}
