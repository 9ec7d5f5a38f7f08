package registry

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestHumanDuration(t *testing.T) {
	cases := map[time.Duration]string{
		-2 * time.Second:              "<invalid>",
		-time.Second / 2:              "0s",
		45 * time.Second:              "45s",
		119 * time.Second:             "119s",
		5*time.Minute + 3*time.Second: "5m3s",
		7 * time.Minute:               "7m",
		90 * time.Minute:              "90m",
		3 * time.Hour:                 "3h",
		3*time.Hour + 20*time.Minute:  "3h20m",
		30 * time.Hour:                "30h",
		52 * time.Hour:                "2d4h",
		72 * time.Hour:                "3d",
		400 * 24 * time.Hour:          "400d",
		(3*365 + 20) * 24 * time.Hour: "3y20d",
		9 * 365 * 24 * time.Hour:      "9y",
	}
	for d, want := range cases {
		assert.Equal(t, want, HumanDuration(d), "%v", d)
	}
}
