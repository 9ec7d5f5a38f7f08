package kinds

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
)

// FuzzNameChecks compares the hand-written checks with the regular
// expressions Kubernetes quotes in their messages.
func FuzzNameChecks(f *testing.F) {
	for _, s := range []string{"", "a", "web-1", "1web", "-a", "a-", "A", "a.b", "..", ".", "..x", "key_NAME", "http", "a--b", strings.Repeat("a", 64)} {
		f.Add(s)
	}
	label := regexp.MustCompile("^" + dns1123LabelFmt + "$")
	label1035 := regexp.MustCompile("^" + dns1035LabelFmt + "$")
	key := regexp.MustCompile("^" + configMapKeyFmt + "$")
	f.Fuzz(func(t *testing.T, s string) {
		assert.Equal(t, label.MatchString(s) && len(s) <= 63, len(IsDNS1123Label(s)) == 0, s)
		assert.Equal(t, label1035.MatchString(s) && len(s) <= 63, len(IsDNS1035Label(s)) == 0, s)
		keyOK := key.MatchString(s) && len(s) <= 253 && s != "." && s != ".." && !strings.HasPrefix(s, "..")
		assert.Equal(t, keyOK, len(IsConfigMapKey(s)) == 0, s)
		_ = IsValidPortName(s)
		p := DefaultPullPolicy(s)
		assert.Contains(t, []string{"Always", "IfNotPresent"}, string(p))
	})
}

// FuzzBuiltinObjects decodes arbitrary JSON into every built-in kind and
// runs its create steps and its printer: nothing may panic, and a row has
// as many cells as the table has columns.
func FuzzBuiltinObjects(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"web"},"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}]}]}}`))
	f.Add([]byte(`{"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"In"}]},"template":{"spec":{"initContainers":[{}]}}},"status":{"initContainerStatuses":[{"state":{"terminated":{"exitCode":1}}}]}}`))
	f.Add([]byte(`{"spec":{"type":"LoadBalancer","ports":[{"port":80,"targetPort":"x"}],"clusterIP":"None"},"subsets":[{"ports":[{}]}]}`))
	f.Add([]byte(`{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"200%","maxUnavailable":0}}},"data":{"..":"x"}}`))
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	resources := Builtin() // schemas are costly to build; the rules keep no state
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, r := range resources {
			obj := r.New()
			if json.Unmarshal(data, obj) != nil {
				continue
			}
			old := api.DeepCopy(obj)
			r.Strategy.PrepareForCreate(obj)
			r.Strategy.Default(obj)
			_ = r.Strategy.Validate(obj)
			r.Strategy.PrepareForUpdate(obj, old)
			_ = r.Strategy.ValidateUpdate(obj, old)
			require.Len(t, r.Table.Cells(obj, now), len(r.Table.Columns), r.Name)
			if r.Fields != nil {
				_ = r.Fields(obj)
			}
			if r.GracePeriod != nil {
				_ = r.GracePeriod(obj, nil)
			}
		}
	})
}
