package controllerruntime

import (
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

// bufferedLogger collects the manager's logs and prints them only when
// the test fails. Unlike a logger that calls t.Log, it stays safe for a
// goroutine that logs after the test has returned.
func bufferedLogger(t *testing.T) logr.Logger {
	var mu sync.Mutex
	var b strings.Builder
	t.Cleanup(func() {
		if t.Failed() {
			mu.Lock()
			defer mu.Unlock()
			t.Logf("manager logs:\n%s", b.String())
		}
	})
	return funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		b.WriteString(prefix + " " + args + "\n")
	}, funcr.Options{})
}
