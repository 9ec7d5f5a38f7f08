package runmode

// Mode is how the loops run. The zero value is Live, the way Kubernetes
// runs.
type Mode int

const (
	// Live runs loops concurrently on the real clock.
	Live Mode = iota
	// Step runs loops one unit of work at a time, driven by the stepper.
	Step
)

// String names the mode.
func (m Mode) String() string {
	if m == Step {
		return "step"
	}
	return "live"
}
