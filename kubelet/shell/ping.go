package shell

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// busybox's ping, as the "Job with Pod-to-Pod Communication" task uses it
// (`ping -c 1 example-job-0.headless-svc`): one echo request a second
// over the container's Network, each answered at once or not at all. It
// runs until -c requests were answered or sent, or -w seconds passed;
// with no answer to the last request it waits -W seconds (10) for one.
// Its status is 0 when an answer came. Left out: packet sizes, TTLs,
// flood and interval options, and the round-trip times (always 0.1 ms).

// pingOptions are the options of one ping.
type pingOptions struct {
	count         int           // -c; 0: for ever
	deadline      time.Duration // -w; 0: none
	wait          time.Duration // -W
	quiet         bool          // -q
	target        string
	unknownOption string
}

func parsePing(args []string) pingOptions {
	o := pingOptions{wait: 10 * time.Second}
	number := func(v string) (int, bool) {
		n, err := strconv.Atoi(v)
		return n, err == nil && n >= 0
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || len(a) < 2 {
			o.target = a
			continue
		}
		flag, v := a[:2], a[2:]
		switch flag {
		case "-q":
			o.quiet = true
			continue
		case "-4":
			continue
		case "-c", "-w", "-W", "-s", "-t", "-i":
		default:
			o.unknownOption = a
			return o
		}
		if v == "" {
			if i+1 >= len(args) {
				o.unknownOption = a
				return o
			}
			i++
			v = args[i]
		}
		n, ok := number(v)
		if !ok {
			o.unknownOption = a
			return o
		}
		switch flag {
		case "-c":
			o.count = n
		case "-w":
			o.deadline = time.Duration(n) * time.Second
		case "-W":
			o.wait = time.Duration(n) * time.Second
		}
	}
	return o
}

func (s *state) ping(args []string) int {
	o := parsePing(args)
	if o.unknownOption != "" || o.target == "" {
		fmt.Fprintln(s.stderr, "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: ping [OPTIONS] HOST")
		return 1
	}
	ip, err := s.resolveHost(o.target)
	if errors.Is(err, ErrTimedOut) && !s.wait(resolverTimeout) {
		return 137
	}
	if err != nil {
		fmt.Fprintf(s.stderr, "ping: bad address '%s'\n", o.target)
		return 1
	}
	fmt.Fprintf(s.stdout, "PING %s (%s): 56 data bytes\n", o.target, ip)
	sent, received := 0, 0
	var elapsed time.Duration
	for o.count == 0 || sent < o.count {
		if o.deadline > 0 && elapsed >= o.deadline {
			break
		}
		answered := s.env.Network != nil && s.env.Network.Ping(s.ctx, ip) == nil
		sent++
		if answered {
			received++
			if !o.quiet {
				fmt.Fprintf(s.stdout, "64 bytes from %s: seq=%d ttl=64 time=0.100 ms\n", ip, sent-1)
			}
		}
		last := o.count != 0 && sent == o.count
		if last && answered {
			break
		}
		// The next request a second later; after the last one, the
		// wait for its answer (-W), within the deadline (-w).
		d := time.Second
		if last {
			d = o.wait
		}
		if o.deadline > 0 && elapsed+d > o.deadline {
			d = o.deadline - elapsed
		}
		if !s.wait(d) {
			return 137
		}
		elapsed += d
	}
	fmt.Fprintf(s.stdout, "\n--- %s ping statistics ---\n%d packets transmitted, %d packets received, %d%% packet loss\n",
		o.target, sent, received, (sent-received)*100/max(sent, 1))
	if received == 0 {
		return 1
	}
	fmt.Fprintln(s.stdout, "round-trip min/avg/max = 0.100/0.100/0.100 ms")
	return 0
}
