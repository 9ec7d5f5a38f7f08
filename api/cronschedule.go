package api

import (
	"fmt"

	"github.com/robfig/cron/v3"
)

// ParseCronSchedule parses a CronJob's schedule as the API server's
// validation and the CronJob controller both do (Kubernetes'
// pkg/util/parsers.ParseCronScheduleWithPanicRecovery): robfig/cron's
// ParseStandard, five fields or a descriptor (@yearly, @annually,
// @monthly, @weekly, @daily, @midnight, @hourly, @every <duration>), with
// its error messages. robfig/cron v3.0.1 panics on a "TZ=" or "CRON_TZ="
// prefix with nothing after it ("TZ=UTC": it slices up to a space that is
// not there); that panic becomes the error "invalid schedule format: ...",
// so a user's schedule never brings down the server or the controller.
func ParseCronSchedule(schedule string) (sched cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			sched, err = nil, fmt.Errorf("invalid schedule format: %v", r)
		}
	}()
	return cron.ParseStandard(schedule)
}
