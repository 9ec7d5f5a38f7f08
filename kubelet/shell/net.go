package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// busybox's nslookup and wget, as the "Debug Services" tutorial uses them
// (`nslookup hostnames`, `wget -qO- hostnames`) and the NetworkPolicy one
// (`wget --spider --timeout=1 nginx`), over the container's Network: the
// cluster's DNS and what a connection to a Service or a pod reaches; wget
// speaks http and https (busybox's ssl_client, which checks no
// certificate). A connection the network drops (a NetworkPolicy) is never
// answered: the client waits out its timeout on the shell's clock, as the
// real one does (timeouts.go). wget (and curl, curl.go) look a name up in
// the container's /etc/hosts before the cluster DNS, as the C library
// does, so localhost is the pod itself. Left out: nslookup's record types
// and server argument, and every wget option but -q, -O, -T/--timeout,
// --spider, --header and -S.

// Network is what the container's network reaches; the kubelet provides
// it (its cluster DNS and Service routing). nil: nothing resolves.
type Network interface {
	// Nameserver is the cluster DNS server's address (resolv.conf's).
	Nameserver() string
	// LookupHost resolves name with the pod's search path, as its
	// resolver would: the fully qualified name found and its addresses,
	// ErrNoSuchHost, or ErrTimedOut when the DNS server cannot be
	// reached (its queries are dropped).
	LookupHost(ctx context.Context, name string) (fqdn string, addrs []string, err error)
	// HTTPGet sends req and returns the answer, ErrConnectionRefused, or
	// ErrTimedOut when the connection is dropped and never answered.
	HTTPGet(ctx context.Context, req HTTPRequest) (HTTPResponse, error)
	// Ping sends an ICMP echo request to ip: nil when something there
	// answers, ErrTimedOut when nothing does.
	Ping(ctx context.Context, ip string) error
}

// HTTPRequest is a GET of Path from IP:Port, with its Host header.
type HTTPRequest struct {
	// Scheme is "https" or "http" ("" too: plain HTTP).
	Scheme         string
	IP, Port, Path string
	// Host is the Host header: the URL's host (and port), or what
	// --header 'Host: ...' said.
	Host string
}

// HTTPResponse is the server's answer.
type HTTPResponse struct {
	Code int
	// Reason is the status line's phrase as the server sent it (nginx:
	// "Gateway Time-out"); "" is the usual one for Code.
	Reason string
	Body   []byte
	// After is how long the server took to answer (a proxy that waited
	// for its backend); the client gives up first if its timeout is
	// shorter.
	After time.Duration
}

// The network's errors, in the words of the C library.
var (
	ErrNoSuchHost        = errors.New("NXDOMAIN")
	ErrConnectionRefused = errors.New("Connection refused")
	ErrTimedOut          = errors.New("Connection timed out")
)

func (s *state) nslookup(args []string) int {
	var name string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			name = a
			break
		}
	}
	if name == "" {
		fmt.Fprintln(s.stderr, "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: nslookup [-type=QUERY_TYPE] [-debug] HOST [DNS_SERVER]")
		return 1
	}
	if s.env.Network == nil {
		fmt.Fprintln(s.stdout, ";; connection timed out; no servers could be reached")
		return 1
	}
	fqdn, addrs, err := s.env.Network.LookupHost(s.ctx, name)
	if errors.Is(err, ErrTimedOut) {
		if !s.wait(nslookupTimeout) {
			return 137
		}
		fmt.Fprintln(s.stdout, ";; connection timed out; no servers could be reached")
		return 1
	}
	ns := s.env.Network.Nameserver()
	fmt.Fprintf(s.stdout, "Server:\t\t%s\nAddress:\t%s:53\n\n", ns, ns)
	if err != nil {
		fmt.Fprintf(s.stdout, "** server can't find %s: %s\n\n", name, err)
		return 1
	}
	for _, a := range addrs {
		fmt.Fprintf(s.stdout, "Name:\t%s\nAddress: %s\n\n", fqdn, a)
	}
	return 0
}

// wgetOptions are the options of one wget.
type wgetOptions struct {
	quiet, spider bool
	out, target   string
	host          string // --header 'Host: ...'
	timeout       time.Duration
}

func parseWget(args []string) (wgetOptions, bool) {
	o := wgetOptions{timeout: wgetDefaultTimeout}
	seconds := func(v string) bool {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return false
		}
		o.timeout = time.Duration(n) * time.Second
		return true
	}
	header := func(h string) {
		if k, v, ok := strings.Cut(h, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "host") {
			o.host = strings.TrimSpace(v)
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return "", false
		}
		switch {
		case a == "-q":
			o.quiet = true
		case a == "-qO-" || a == "-qO" && i+1 < len(args) && args[i+1] == "-":
			o.quiet, o.out = true, "-"
			if a == "-qO" {
				i++
			}
		case a == "-O" && i+1 < len(args):
			o.out, _ = next()
		case strings.HasPrefix(a, "-O"):
			o.out = a[2:]
		case a == "-T" || a == "--timeout":
			v, ok := next()
			if !ok || !seconds(v) {
				return o, false
			}
		case strings.HasPrefix(a, "--timeout="):
			if !seconds(strings.TrimPrefix(a, "--timeout=")) {
				return o, false
			}
		case strings.HasPrefix(a, "-T"):
			if !seconds(a[2:]) {
				return o, false
			}
		case a == "--spider":
			o.spider = true
		case a == "--header":
			v, ok := next()
			if !ok {
				return o, false
			}
			header(v)
		case strings.HasPrefix(a, "--header="):
			header(strings.TrimPrefix(a, "--header="))
		case strings.HasPrefix(a, "-"):
		default:
			o.target = a
		}
	}
	return o, o.target != ""
}

func (s *state) wget(args []string) int {
	o, ok := parseWget(args)
	if !ok {
		fmt.Fprintln(s.stderr, "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]\n\t[--post-data STR | --post-file FILE] [-Y on/off]\n\t[-P DIR] [-U AGENT] [-T SEC] URL...")
		return 1
	}
	raw := o.target
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		fmt.Fprintf(s.stderr, "wget: not an http or ftp url: %s\n", o.target)
		return 1
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	ip, err := s.resolveHost(host)
	if errors.Is(err, ErrTimedOut) && !s.wait(resolverTimeout) {
		return 137
	}
	if err != nil {
		fmt.Fprintf(s.stderr, "wget: bad address '%s'\n", host)
		return 1
	}
	if !o.quiet {
		fmt.Fprintf(s.stderr, "Connecting to %s (%s:%s)\n", u.Host, ip, port)
	}
	resp, err := s.httpGet(u, ip, port, o.host)
	// A dropped connection is retried by the kernel until it gives up
	// (connectTimeout), unless wget's own timeout ends it first; a slow
	// answer is waited for as long as wget's timeout allows.
	switch {
	case errors.Is(err, ErrTimedOut) && o.timeout < connectTimeout, err == nil && resp.After >= o.timeout:
		if !s.wait(o.timeout) {
			return 137
		}
		fmt.Fprintln(s.stderr, "wget: download timed out")
		return 1
	case errors.Is(err, ErrTimedOut):
		if !s.wait(connectTimeout) {
			return 137
		}
	case err == nil && resp.After > 0:
		if !s.wait(resp.After) {
			return 137
		}
	}
	if err != nil {
		fmt.Fprintf(s.stderr, "wget: can't connect to remote host (%s): %s\n", ip, err)
		return 1
	}
	if resp.Code >= 400 {
		reason := resp.Reason
		if reason == "" {
			reason = httpStatusText(resp.Code)
		}
		fmt.Fprintf(s.stderr, "wget: server returned error: HTTP/1.1 %d %s\n", resp.Code, reason)
		return 1
	}
	if o.spider {
		if !o.quiet {
			fmt.Fprintln(s.stderr, "remote file exists")
		}
		return 0
	}
	out := o.out
	if out == "" {
		out = pathBase(u.Path)
	}
	var w io.Writer = s.stdout
	if out != "-" {
		fw, err := s.openForWrite(out, false)
		if err != nil {
			fmt.Fprintf(s.stderr, "wget: can't open '%s': %s\n", out, err)
			return 1
		}
		w = fw
	}
	if !o.quiet {
		if out == "-" {
			fmt.Fprintln(s.stderr, "writing to stdout")
		} else {
			fmt.Fprintf(s.stderr, "saving to '%s'\n", out)
		}
	}
	w.Write(resp.Body)
	if !o.quiet {
		if out == "-" {
			fmt.Fprintln(s.stderr, "written to stdout")
		} else {
			fmt.Fprintf(s.stderr, "'%s' saved\n", out)
		}
	}
	return 0
}

// wait lets d pass on the shell's clock; false when the process was
// killed meanwhile (the client went away).
func (s *state) wait(d time.Duration) bool {
	select {
	case <-s.clock.After(d):
		return true
	case <-s.ctx.Done():
		return false
	}
}

// pathBase is the file wget saves a URL's path to: its last element, or
// index.html.
func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	if p == "" {
		return "index.html"
	}
	return p
}

// httpStatusText is the reason phrase of a status line with code.
func httpStatusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "Error"
}

// httpGet sends the GET of u to ip:port over the container's network,
// with the Host header host (the URL's when empty): what wget and curl
// send.
func (s *state) httpGet(u *url.URL, ip, port, host string) (HTTPResponse, error) {
	req := HTTPRequest{Scheme: u.Scheme, IP: ip, Port: port, Path: u.RequestURI(), Host: u.Host}
	if host != "" {
		req.Host = host
	}
	if s.env.Network == nil {
		return HTTPResponse{}, ErrConnectionRefused
	}
	return s.env.Network.HTTPGet(s.ctx, req)
}
