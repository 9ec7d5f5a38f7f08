package api

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCronSchedule(t *testing.T) {
	s, err := ParseCronSchedule("TZ=Asia/Tokyo 0 9 * * *")
	require.NoError(t, err)
	// 09:00 in Tokyo is 00:00 UTC.
	assert.Equal(t, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), s.Next(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)))

	// robfig/cron v3.0.1 panics on a zone prefix with nothing after it.
	for _, schedule := range []string{"TZ=", "TZ=UTC", "CRON_TZ=Europe/Paris", "TZ=Invalid/Timezone"} {
		s, err := ParseCronSchedule(schedule)
		assert.Nil(t, s, schedule)
		assert.EqualError(t, err, "invalid schedule format: runtime error: slice bounds out of range [:-1]", schedule)
	}
	_, err = ParseCronSchedule("61 * * * *")
	assert.EqualError(t, err, "end of range (61) above maximum (59): 61")
}
