package registry

import (
	"fmt"
	"time"
)

// HumanDuration renders an age the way kubectl prints it: "45s", "5m3s",
// "3h", "2d4h", "400d", "3y20d". The thresholds are the ones of
// k8s.io/apimachinery/pkg/util/duration, so a kubesim AGE column reads like
// a real cluster's.
func HumanDuration(d time.Duration) string {
	secs := int64(d / time.Second)
	switch {
	case secs < -1:
		return "<invalid>"
	case secs < 0:
		return "0s"
	case secs < 120:
		return fmt.Sprintf("%ds", secs)
	}
	mins := int64(d / time.Minute)
	switch {
	case mins < 10:
		if s := secs % 60; s != 0 {
			return fmt.Sprintf("%dm%ds", mins, s)
		}
		return fmt.Sprintf("%dm", mins)
	case mins < 180:
		return fmt.Sprintf("%dm", mins)
	}
	hours := int64(d / time.Hour)
	switch {
	case hours < 8:
		if m := mins % 60; m != 0 {
			return fmt.Sprintf("%dh%dm", hours, m)
		}
		return fmt.Sprintf("%dh", hours)
	case hours < 48:
		return fmt.Sprintf("%dh", hours)
	case hours < 24*8:
		if h := hours % 24; h != 0 {
			return fmt.Sprintf("%dd%dh", hours/24, h)
		}
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*2:
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*8:
		if dy := (hours / 24) % 365; dy != 0 {
			return fmt.Sprintf("%dy%dd", hours/24/365, dy)
		}
		return fmt.Sprintf("%dy", hours/24/365)
	}
	return fmt.Sprintf("%dy", hours/24/365)
}
