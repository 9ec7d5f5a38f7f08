package kubelet

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestParseBehaviour(t *testing.T) {
	tests := []struct {
		in   string
		want PodBehaviour
		err  string
	}{
		{"", PodBehaviour{}, ""},
		{"crash-after=5s", PodBehaviour{ExitAfter: 5 * time.Second, ExitCode: 1}, ""},
		{"exit-after=3s", PodBehaviour{ExitAfter: 3 * time.Second}, ""},
		{"exit-code=1,exit-after=3s", PodBehaviour{ExitAfter: 3 * time.Second, ExitCode: 1}, ""},
		{" exit-after = 1m , exit-code = 2 ", PodBehaviour{ExitAfter: time.Minute, ExitCode: 2}, ""},
		{"crash-after=2s,exit-code=137", PodBehaviour{ExitAfter: 2 * time.Second, ExitCode: 137}, ""},
		{"crash-after=2s,exit-code=0", PodBehaviour{}, "a crash needs a non-zero exit-code"},
		{"exit-code=1", PodBehaviour{}, "exit-code needs exit-after"},
		{"exit-after=0s", PodBehaviour{}, "want a positive duration"},
		{"exit-after=-1s", PodBehaviour{}, "want a positive duration"},
		{"exit-after=soon", PodBehaviour{}, "want a positive duration"},
		{"exit-after=1s,crash-after=2s", PodBehaviour{}, "more than once"},
		{"exit-code=256,exit-after=1s", PodBehaviour{}, "from 0 to 255"},
		{"sleep=1s", PodBehaviour{}, `unknown behaviour key "sleep"`},
		{"crash-after", PodBehaviour{}, "want key=value"},
		{"liveness-fail-after=30s", PodBehaviour{LivenessFailAfter: 30 * time.Second}, ""},
		{"readiness-fail-after=10s,stop-after=45s", PodBehaviour{ReadinessFailAfter: 10 * time.Second, StopAfter: 45 * time.Second}, ""},
		{"stop-after=0s", PodBehaviour{}, "want a positive duration"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseBehaviour(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseBehaviour(f *testing.F) {
	for _, s := range []string{"", "crash-after=5s", "exit-code=1,exit-after=3s", "exit-after=1h,,", "=", "exit-code=-0,exit-after=1ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBehaviour(s)
		if err != nil {
			assert.Equal(t, PodBehaviour{}, b)
			return
		}
		assert.GreaterOrEqual(t, b.ExitAfter, time.Duration(0))
		assert.True(t, b.ExitCode >= 0 && b.ExitCode <= 255)
		if strings.TrimSpace(s) != "" && b.ExitAfter == 0 {
			t.Fatalf("%q parsed without a duration", s)
		}
	})
}

func TestDefaultBehaviourReadsTheAnnotation(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{BehaviourAnnotation: "crash-after=5s"}}}
	assert.Equal(t, PodBehaviour{ExitAfter: 5 * time.Second, ExitCode: 1}, DefaultBehaviour(pod))
	pod.Annotations[BehaviourAnnotation] = "nonsense"
	assert.Equal(t, PodBehaviour{}, DefaultBehaviour(pod), "a bad value runs normally")
}

func TestIPAM(t *testing.T) {
	a, err := newIPAM("10.244.3.0/29")
	require.NoError(t, err)
	assert.Equal(t, "10.244.3.1", a.gateway())
	var got []string
	for range 5 {
		ip, err := a.allocate()
		require.NoError(t, err)
		got = append(got, ip)
	}
	assert.Equal(t, []string{"10.244.3.2", "10.244.3.3", "10.244.3.4", "10.244.3.5", "10.244.3.6"}, got)
	_, err = a.allocate()
	assert.EqualError(t, err, "no IP addresses available in range set: 10.244.3.2-10.244.3.6")
	a.release("10.244.3.4")
	ip, err := a.allocate()
	require.NoError(t, err)
	assert.Equal(t, "10.244.3.4", ip)

	for _, bad := range []string{"nonsense", "10.0.0.0/30", "fd00::/64"} {
		_, err := newIPAM(bad)
		assert.Error(t, err, bad)
	}
}
