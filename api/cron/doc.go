// Package cron parses the schedules of CronJobs ("*/5 * * * *",
// "0 9 * * mon-fri", "@hourly") and finds the next time a schedule fires.
//
// It simulates what Kubernetes borrows from github.com/robfig/cron/v3: the
// API server validates spec.schedule with cron.ParseStandard, and the
// CronJob controller asks the parsed schedule for Next. The grammar and
// the error messages are that library's, so an unparsable schedule is
// refused with the words a real cluster uses.
//
// Five fields (minute, hour, day of month, month, day of week), each a
// list of "*", values, ranges "a-b" and steps "/n"; month and weekday
// names (jan, mon); the descriptors @yearly, @annually, @monthly, @weekly,
// @daily, @midnight, @hourly and @every <duration>. As in robfig/cron,
// when day of month or day of week is "*" (or "?") a day must match both,
// otherwise either.
//
// Left out: the optional seconds field and the CRON_TZ=/TZ= prefixes (the
// API server refuses them in a CronJob anyway; spec.timeZone is the way);
// Next works in any *time.Location.
//
// Read the real one at
// https://github.com/robfig/cron/blob/master/parser.go and spec.go.
package cron
