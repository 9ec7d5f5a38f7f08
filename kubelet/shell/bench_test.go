package shell

import (
	"context"
	"io"
	"testing"
	"time"
)

// BenchmarkScript is what playing a container's script costs the
// kubelet: a short command, and the tutorials' loop played for 100
// rounds on a clock that moves on at once (as the kubelet's does).
func BenchmarkScript(b *testing.B) {
	for _, tc := range []struct{ name, script string }{
		{"echo", "echo hello"},
		{"loop-100", `echo start; i=0; while [ $i -lt 100 ]; do echo "tick $i"; i=$((i+1)); sleep 5; done`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Command{Args: []string{"sh", "-c", tc.script}, Env: testEnv(), Stdio: Stdio{Stdout: io.Discard},
					Clock: &skipClock{start: time.Unix(0, 0)}}.Run(context.Background())
			}
		})
	}
}
