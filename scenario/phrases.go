package scenario

// Phrases are the sentences a Runner writes in its steps' messages about
// what it did itself (ran the cluster, stopped a node, turned a controller
// off), in one language: each a fmt format of the arguments its comment
// names, in that order (a translation may reorder them with %[n]s). What
// the API answered — "replicaset.apps/web created", an error — is kubectl's
// text and stays as it is.
type Phrases struct {
	// Ran, Stable and Advanced: the units of work run, the simulated clock.
	Ran, Stable, Advanced string
	// NotStable and StillBusy: the units of work run; Settles is what a
	// runUntilStable step expects.
	NotStable, StillBusy, Settles string
	// NodeStopped, NodeStarted, ComponentKilled, TurnedOff and TurnedOn:
	// the node, component or controller.
	NodeStopped, NodeStarted, ComponentKilled, TurnedOff, TurnedOn string
	// DeviceUnhealthy and DeviceHealthy: the device, its resource, the
	// node.
	DeviceUnhealthy, DeviceHealthy string
	// FailedAsExpected: the error, as kubectl prints it.
	FailedAsExpected string
}

// EnglishPhrases are the Runner's sentences in English, its default.
func EnglishPhrases() Phrases {
	return Phrases{
		Ran:              "ran %d step(s); clock at %s",
		Stable:           "stable after %d step(s); clock at %s",
		Advanced:         "%d step(s); clock at %s",
		NotStable:        "not stable after %d steps",
		StillBusy:        "still busy after %d steps",
		Settles:          "the cluster settles",
		NodeStopped:      "the kubelet of %s stopped: no more heartbeats, its pods are no longer tended",
		NodeStarted:      "the kubelet of %s started again",
		ComponentKilled:  "controller manager %s killed: its controllers stop; it neither renews nor releases its Lease",
		TurnedOff:        "%s turned off",
		TurnedOn:         "%s turned on",
		DeviceUnhealthy:  "the device plugin marked %s of %s on %s unhealthy; the kubelet heard it on ListAndWatch",
		DeviceHealthy:    "the device plugin marked %s of %s on %s healthy again; the kubelet heard it on ListAndWatch",
		FailedAsExpected: "failed as expected: %s",
	}
}
