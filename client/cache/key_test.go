package cache

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSplitKeyUndoesKey(t *testing.T) {
	for _, m := range []metav1.ObjectMeta{{Namespace: "default", Name: "web"}, {Name: "node-1"}} {
		ns, name := SplitKey(Key(&m))
		assert.Equal(t, m.Namespace, ns)
		assert.Equal(t, m.Name, name)
	}
}
