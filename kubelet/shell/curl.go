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

// curl, in the images that have it (nginx's among them: the StatefulSet
// tutorial's `kubectl exec web-0 -- curl http://localhost/`), over the
// container's Network as wget. It prints the body, whatever the status,
// unless -f; -s and -S change only what is said on errors (there is no
// progress meter to hide: kubesim prints none); -o FILE saves the body,
// -H 'Host: NAME' sets the Host header, -m SEC (--max-time) bounds the
// wait, -I prints the status line alone. Its errors are curl's, with its
// exit codes: 6 (could not resolve host), 7 (failed to connect), 22 (-f
// and an error status), 28 (timed out). Left out: every other option,
// methods but GET and HEAD, and the progress meter curl prints on a
// non-terminal stderr.

// curlOptions are the options of one curl.
type curlOptions struct {
	silent, showError, fail, head bool
	out, target, host             string
	maxTime                       time.Duration
}

func parseCurl(args []string) (curlOptions, error) {
	var o curlOptions
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, error) {
			if i+1 < len(args) {
				i++
				return args[i], nil
			}
			return "", fmt.Errorf("option %s: requires parameter", a)
		}
		switch {
		case a == "-o" || a == "--output" || a == "-H" || a == "--header" || a == "-m" || a == "--max-time":
			v, err := next()
			if err != nil {
				return o, err
			}
			switch a {
			case "-o", "--output":
				o.out = v
			case "-H", "--header":
				if k, val, ok := strings.Cut(v, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "host") {
					o.host = strings.TrimSpace(val)
				}
			default:
				secs, err := strconv.ParseFloat(v, 64)
				if err != nil || secs < 0 {
					return o, fmt.Errorf("option %s: expected a proper numerical parameter", a)
				}
				o.maxTime = time.Duration(secs * float64(time.Second))
			}
		case a == "--silent":
			o.silent = true
		case a == "--show-error":
			o.showError = true
		case a == "--fail":
			o.fail = true
		case a == "--head":
			o.head = true
		case strings.HasPrefix(a, "--"):
			// --location, --insecure, --verbose...: nothing to change here.
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for _, c := range a[1:] {
				switch c {
				case 's':
					o.silent = true
				case 'S':
					o.showError = true
				case 'f':
					o.fail = true
				case 'I':
					o.head = true
				}
			}
		default:
			o.target = a
		}
	}
	if o.target == "" {
		return o, errors.New("no URL specified")
	}
	return o, nil
}

func (s *state) curl(args []string) int {
	o, err := parseCurl(args)
	if err != nil {
		fmt.Fprintf(s.stderr, "curl: %v\ncurl: try 'curl --help' or 'curl --manual' for more information\n", err)
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
	if u.Scheme != "http" && u.Scheme != "https" {
		return fail(1, "Protocol \"%s\" not supported", u.Scheme)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	ip := host
	if net.ParseIP(host) == nil {
		var addrs []string
		err = ErrNoSuchHost
		if s.env.Network != nil {
			_, addrs, err = s.env.Network.LookupHost(s.ctx, host)
		}
		if errors.Is(err, ErrTimedOut) {
			if !s.wait(resolverTimeout) {
				return 137
			}
		}
		if err != nil || len(addrs) == 0 {
			return fail(6, "Could not resolve host: %s", host)
		}
		ip = addrs[0]
	}
	req := HTTPRequest{Scheme: u.Scheme, IP: ip, Port: port, Path: u.RequestURI(), Host: u.Host}
	if o.host != "" {
		req.Host = o.host
	}
	var resp HTTPResponse
	if s.env.Network == nil {
		err = ErrConnectionRefused
	} else {
		resp, err = s.env.Network.HTTPGet(s.ctx, req)
	}
	limit := connectTimeout
	if o.maxTime > 0 {
		limit = min(limit, o.maxTime)
	}
	switch {
	case errors.Is(err, ErrTimedOut) || err == nil && o.maxTime > 0 && resp.After >= o.maxTime:
		if !s.wait(limit) {
			return 137
		}
		if o.maxTime > 0 && limit == o.maxTime {
			return fail(28, "Connection timed out after %d milliseconds", limit.Milliseconds())
		}
		return fail(28, "Failed to connect to %s port %s after %d ms: Connection timed out", host, port, limit.Milliseconds())
	case err != nil:
		return fail(7, "Failed to connect to %s port %s after 0 ms: Couldn't connect to server", host, port)
	case resp.After > 0:
		if !s.wait(resp.After) {
			return 137
		}
	}
	if o.fail && resp.Code >= 400 {
		return fail(22, "The requested URL returned error: %d", resp.Code)
	}
	if o.head {
		reason := resp.Reason
		if reason == "" {
			reason = httpStatusText(resp.Code)
		}
		fmt.Fprintf(s.stdout, "HTTP/1.1 %d %s\r\n\r\n", resp.Code, reason)
		return 0
	}
	var w io.Writer = s.stdout
	if o.out != "" && o.out != "-" {
		fw, err := s.openForWrite(o.out, false)
		if err != nil {
			return fail(23, "Failure writing output to destination")
		}
		w = fw
	}
	w.Write(resp.Body)
	return 0
}
