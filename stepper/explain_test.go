package stepper

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// explainTrace is a chain of three reconciles: the user's ReplicaSet (at
// resourceVersion 10) queues the replicaset controller, whose pod (11)
// queues the scheduler, whose binding (12) is the last write; a requeue
// and a timer end two shorter chains.
func explainTrace() ([]Entry, UserWrites) {
	users := UserWrites{"10": {Step: 2, Title: "apply web-rs.yaml", Write: Write{Verb: "create", Path: "/apis/apps/v1/namespaces/default/replicasets", Code: 201, ResourceVersion: "10", Name: "web"}}}
	trace := []Entry{
		{Elapsed: time.Second, Actor: "replicaset", Key: "default/web", Cause: "ADDED ReplicaSet default/web@10",
			Writes: []Write{{Verb: "create", Path: "/api/v1/namespaces/default/pods", Code: 201, ResourceVersion: "11", Name: "web-a"}}},
		{Elapsed: 2 * time.Second, Actor: "scheduler", Key: "default/web-a", Cause: "ADDED Pod default/web-a@11",
			Writes: []Write{{Verb: "create", Path: "/api/v1/namespaces/default/pods/web-a/binding", Code: 201, ResourceVersion: "12"}}},
		{Elapsed: 3 * time.Second, Actor: "scheduler", Key: "default/web-a", Cause: "requeue",
			Writes: []Write{{Verb: "patch", Path: "/api/v1/namespaces/default/pods/web-a/status", Code: 200, ResourceVersion: "13"}}},
		{Elapsed: 4 * time.Second, Actor: "nodelifecycle", Key: "node-1", Cause: "timer",
			Writes: []Write{{Verb: "patch", Path: "/api/v1/nodes/node-1", Code: 200, ResourceVersion: "14"}}},
	}
	return trace, users
}

func TestExplainWriteFollowsTheChainInEnglish(t *testing.T) {
	trace, users := explainTrace()
	assert.Equal(t, "The last write: create /api/v1/namespaces/default/pods/web-a/binding 201 rv=12\n"+
		"  made by scheduler at 2.000s while reconciling default/web-a\n"+
		"  because scheduler saw the ADDED event of Pod default/web-a at resourceVersion 11\n"+
		"  resourceVersion 11 was written by replicaset at 1.000s (create /api/v1/namespaces/default/pods 201 rv=11) while reconciling default/web\n"+
		"  because replicaset saw the ADDED event of ReplicaSet default/web at resourceVersion 10\n"+
		"  resourceVersion 10 was written by you: step 3 (apply web-rs.yaml): create /apis/apps/v1/namespaces/default/replicasets 201 rv=10\n",
		ExplainWrite(trace, 1, trace[1].Writes[0], users))
	assert.Contains(t, ExplainWrite(trace, 2, trace[2].Writes[0], users),
		"  default/web-a was queued by \"requeue\", set by scheduler's earlier reconcile of default/web-a at 2.000s\n")
	assert.Contains(t, ExplainWrite(trace, 3, trace[3].Writes[0], users),
		"  nodelifecycle worked on node-1 because of \"timer\" (its own start or a timer), not a watch event.\n")
	assert.Equal(t, "You created it: step 3 (apply web-rs.yaml): create /apis/apps/v1/namespaces/default/replicasets 201 rv=10\n",
		ExplainObject(trace, "/apis/apps/v1/namespaces/default/replicasets", "web", users))
	assert.True(t, strings.HasPrefix(ExplainObject(trace, "/api/v1/namespaces/default/pods", "web-a", users), "It was created by: create /api/v1/namespaces/default/pods 201"))
}

// A language's Phrases may put the arguments in its own order: the chain
// is the same, told in other words.
func TestExplainWriteSpeaksThePhrasesGiven(t *testing.T) {
	trace, users := explainTrace()
	p := EnglishPhrases()
	p.Lead = "[%s] %s\n"
	p.LastWrite = "LAST"
	p.MadeBy = "  %[3]s by %[1]s @%[2]s\n"
	p.SawEvent = "  %[4]s %[2]s (%[3]s, rv %[5]s) seen by %[1]s\n"
	p.WrittenBy = "  rv %[1]s: %[4]s, %[2]s reconciling %[5]s @%[3]s\n"
	p.ByYouInStep = "  rv %[1]s: YOU, step %[2]d %[3]q: %[4]s\n"
	assert.Equal(t, "[LAST] create /api/v1/namespaces/default/pods/web-a/binding 201 rv=12\n"+
		"  default/web-a by scheduler @2.000s\n"+
		"  default/web-a ADDED (Pod, rv 11) seen by scheduler\n"+
		"  rv 11: create /api/v1/namespaces/default/pods 201 rv=11, replicaset reconciling default/web @1.000s\n"+
		"  default/web ADDED (ReplicaSet, rv 10) seen by replicaset\n"+
		"  rv 10: YOU, step 3 \"apply web-rs.yaml\": create /apis/apps/v1/namespaces/default/replicasets 201 rv=10\n",
		p.ExplainWrite(trace, 1, trace[1].Writes[0], users))
}
