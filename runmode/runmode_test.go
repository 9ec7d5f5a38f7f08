package runmode

import "testing"

func TestZeroValueIsLive(t *testing.T) {
	var m Mode
	if m != Live || m.String() != "live" || Step.String() != "step" {
		t.Fatalf("zero mode %v, step %v", m, Step)
	}
}
