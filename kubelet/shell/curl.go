package shell

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// curl, as the images that have it run it (nginx, the Kubernetes Basics
// bootcamp, curlimages/curl; not busybox or alpine: Environment.Curl), so
// that the tutorials' `kubectl exec POD -- curl http://localhost:8080`
// and `curl http://SERVICE` work. It shares wget's way through the
// container's network. Its words are curl 8's: the progress meter on
// stderr when the body does not go to a terminal, `curl: (6) Could not
// resolve host`, `curl: (7) Failed to connect`, `curl: (22)` under
// --fail, `curl: (28)` for a timeout. Left out: TLS (an https URL is
// connected to like an http one), uploads and methods other than GET,
// cookies, following redirects (simulated servers send none), and every
// option but -s, -S, -f, -o, -O, -I, -i, -m, --connect-timeout, -H Host,
// -w %{http_code} and %{size_download}, -L, -k, -v and -X (the last four
// accepted and without effect).

// curlOptions are the options of one curl.
type curlOptions struct {
	silent, showError, fail  bool
	head, include            bool
	out                      string // -o FILE; "" is stdout
	remoteName               bool   // -O
	writeOut                 string
	maxTime, connect         time.Duration
	host                     string // -H 'Host: ...'
	target                   string
	unknown, missingArgument string
}

// curlShort are curl's one-letter options that take an argument.
const curlShort = "oHmwXuAedTFbcKEQrxy"

func parseCurl(args []string) curlOptions {
	var o curlOptions
	seconds := func(v string) time.Duration {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return 0
		}
		return time.Duration(f * float64(time.Second))
	}
	set := func(name, v string) {
		switch name {
		case "o", "output":
			o.out = v
		case "H", "header":
			if k, val, ok := strings.Cut(v, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "host") {
				o.host = strings.TrimSpace(val)
			}
		case "m", "max-time":
			o.maxTime = seconds(v)
		case "connect-timeout":
			o.connect = seconds(v)
		case "w", "write-out":
			o.writeOut = v
		}
	}
	flag := func(name string) bool {
		switch name {
		case "s", "silent":
			o.silent = true
		case "S", "show-error":
			o.showError = true
		case "f", "fail":
			o.fail = true
		case "I", "head":
			o.head = true
		case "i", "include":
			o.include = true
		case "O", "remote-name":
			o.remoteName = true
		case "L", "location", "k", "insecure", "v", "verbose", "4", "ipv4", "N", "no-buffer":
		default:
			return false
		}
		return true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "--") && len(a) > 2:
			name, v, hasValue := strings.Cut(a[2:], "=")
			switch name {
			case "output", "header", "max-time", "connect-timeout", "write-out", "request", "user-agent", "data":
				if !hasValue {
					if i+1 >= len(args) {
						o.missingArgument = a
						return o
					}
					i++
					v = args[i]
				}
				set(name, v)
			default:
				if !flag(name) {
					o.unknown = a
					return o
				}
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				c := string(a[j])
				if strings.Contains(curlShort, c) {
					v := a[j+1:]
					if v == "" {
						if i+1 >= len(args) {
							o.missingArgument = "-" + c
							return o
						}
						i++
						v = args[i]
					}
					set(c, v)
					break
				}
				if !flag(c) {
					o.unknown = "-" + c
					return o
				}
			}
		default:
			o.target = a
		}
	}
	return o
}

func (s *state) curl(args []string) int {
	o := parseCurl(args)
	help := "curl: try 'curl --help' or 'curl --manual' for more information"
	switch {
	case o.unknown != "":
		fmt.Fprintf(s.stderr, "curl: option %s: is unknown\n%s\n", o.unknown, help)
		return 2
	case o.missingArgument != "":
		fmt.Fprintf(s.stderr, "curl: option %s: requires parameter\n%s\n", o.missingArgument, help)
		return 2
	case o.target == "":
		fmt.Fprintf(s.stderr, "curl: no URL specified\n%s\n", help)
		return 2
	}
	fail := func(code int, format string, a ...any) int {
		if !o.silent || o.showError {
			fmt.Fprintf(s.stderr, "curl: (%d) %s\n", code, fmt.Sprintf(format, a...))
		}
		return code
	}
	raw := o.target
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return fail(3, "URL rejected: Malformed input to a URL function")
	}
	port := u.Port()
	switch u.Scheme {
	case "http":
		if port == "" {
			port = "80"
		}
	case "https":
		if port == "" {
			port = "443"
		}
	default:
		return fail(1, "Protocol %q not supported", u.Scheme)
	}
	// The whole transfer may take maxTime; the connection connect (or
	// the kernel's retries) within it.
	limit := func(d time.Duration) (time.Duration, bool) {
		if o.maxTime > 0 && o.maxTime <= d {
			return o.maxTime, true
		}
		return d, false
	}
	host := u.Hostname()
	ip, err := s.resolveHost(host)
	if errors.Is(err, ErrTimedOut) {
		d, capped := limit(resolverTimeout)
		if !s.wait(d) {
			return 137
		}
		if capped {
			return fail(28, "Resolving timed out after %d milliseconds", d.Milliseconds())
		}
	}
	if err != nil {
		return fail(6, "Could not resolve host: %s", host)
	}
	resp, err := s.httpGet(u, ip, port, o.host)
	switch {
	case errors.Is(err, ErrTimedOut):
		d, capped := connectTimeout, false
		if o.connect > 0 && o.connect < d {
			d = o.connect
		}
		if d, capped = limit(d); !s.wait(d) {
			return 137
		}
		if capped {
			return fail(28, "Connection timed out after %d milliseconds", d.Milliseconds())
		}
		return fail(28, "Failed to connect to %s port %s after %d ms: Couldn't connect to server", host, port, d.Milliseconds())
	case err != nil:
		return fail(7, "Failed to connect to %s port %s after 0 ms: Couldn't connect to server", host, port)
	case resp.After > 0:
		d, capped := limit(resp.After)
		if !s.wait(d) {
			return 137
		}
		if capped {
			return fail(28, "Operation timed out after %d milliseconds with 0 bytes received", d.Milliseconds())
		}
	}
	if o.fail && resp.Code >= 400 {
		return fail(22, "The requested URL returned error: %d", resp.Code)
	}
	body := resp.Body
	if o.head {
		body = nil
	}
	out := o.out
	if o.remoteName && out == "" {
		if out = pathBase(u.Path); !strings.Contains(u.Path, "/") || strings.HasSuffix(u.Path, "/") {
			return fail(23, "Remote file name has no length")
		}
	}
	var w io.Writer = s.stdout
	if out != "" && out != "-" {
		fw, err := s.openForWrite(out, false)
		if err != nil {
			return fail(23, "Failure writing output to destination")
		}
		w = fw
	}
	if !o.silent && (!s.tty || w != s.stdout) {
		fmt.Fprint(s.stderr, curlProgress(len(body)))
	}
	if o.head || o.include {
		reason := resp.Reason
		if reason == "" {
			reason = httpReason(resp.Code)
		}
		fmt.Fprintf(w, "HTTP/1.1 %d %s\r\nContent-Length: %d\r\n\r\n", resp.Code, reason, len(resp.Body))
	}
	w.Write(body)
	if o.writeOut != "" {
		r := strings.NewReplacer("%{http_code}", fmt.Sprintf("%03d", resp.Code), "%{response_code}", fmt.Sprintf("%03d", resp.Code),
			"%{size_download}", strconv.Itoa(len(body)), `\n`, "\n", `\t`, "\t")
		fmt.Fprint(s.stdout, r.Replace(o.writeOut))
	}
	return 0
}

// resolveHost is the address a client connects to for host: an address
// as written, a name of the container's /etc/hosts (localhost, the pod's
// own hostname), else the cluster DNS's first answer, as the C library's
// resolver looks them up.
func (s *state) resolveHost(host string) (string, error) {
	if net.ParseIP(host) != nil {
		return host, nil
	}
	if hosts, ok := s.file("/etc/hosts"); ok {
		for line := range strings.Lines(string(hosts)) {
			line, _, _ = strings.Cut(line, "#")
			f := strings.Fields(line)
			for _, name := range f[min(1, len(f)):] {
				if strings.EqualFold(name, host) && net.ParseIP(f[0]).To4() != nil {
					return f[0], nil
				}
			}
		}
	}
	if s.env.Network == nil {
		return "", ErrNoSuchHost
	}
	_, addrs, err := s.env.Network.LookupHost(s.ctx, host)
	if err == nil && len(addrs) == 0 {
		err = ErrNoSuchHost
	}
	if err != nil {
		return "", err
	}
	return addrs[0], nil
}

// curlProgress is curl's progress meter for a transfer of n bytes that
// took a millisecond (a simulated answer takes no time).
func curlProgress(n int) string {
	speed := int64(n) * 1000
	return "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n" +
		"                                 Dload  Upload   Total   Spent    Left  Speed\n" +
		fmt.Sprintf("\r100 %s  100 %s    0 %s  %s  %s --:--:-- --:--:-- --:--:-- %s\n",
			max5(int64(n)), max5(int64(n)), max5(0), max5(speed), max5(0), max5(speed))
}

// max5 writes a byte count in five characters, as curl's meter does.
func max5(b int64) string {
	const k, m = 1024, 1024 * 1024
	switch {
	case b < 100000:
		return fmt.Sprintf("%5d", b)
	case b < 10000*k:
		return fmt.Sprintf("%4dk", b/k)
	case b < 100*m:
		return fmt.Sprintf("%2d.%dM", b/m, (b%m)/(m/10))
	}
	return fmt.Sprintf("%4dM", b/m)
}

// httpReason is the usual phrase of an HTTP status code.
func httpReason(code int) string {
	if code == 200 {
		return "OK"
	}
	return httpStatusText(code)
}
