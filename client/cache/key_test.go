package cache

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/api"
)

func TestSplitKeyUndoesKey(t *testing.T) {
	for _, m := range []api.ObjectMeta{{Namespace: "default", Name: "web"}, {Name: "node-1"}} {
		ns, name := SplitKey(Key(&m))
		assert.Equal(t, m.Namespace, ns)
		assert.Equal(t, m.Name, name)
	}
}
