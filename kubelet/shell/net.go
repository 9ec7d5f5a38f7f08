package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// busybox's nslookup and wget, as the "Debug Services" tutorial uses them
// (`nslookup hostnames`, `wget -qO- hostnames`), over the container's
// Network: the cluster's DNS and what a connection to a Service or a pod
// reaches; wget speaks http and https (busybox's ssl_client, which checks
// no certificate). Left out: nslookup's record types and server argument,
// and every wget option but -q, -O, -T and -S.

// Network is what the container's network reaches; the kubelet provides
// it (its cluster DNS and Service routing). nil: nothing resolves.
type Network interface {
	// Nameserver is the cluster DNS server's address (resolv.conf's).
	Nameserver() string
	// LookupHost resolves name with the pod's search path, as its
	// resolver would: the fully qualified name found and its addresses,
	// or ErrNoSuchHost.
	LookupHost(ctx context.Context, name string) (fqdn string, addrs []string, err error)
	// HTTPGet sends GET path to ip:port over scheme ("http" or
	// "https") and returns the status code and body, or
	// ErrConnectionRefused.
	HTTPGet(ctx context.Context, scheme, ip, port, path string) (int, []byte, error)
}

// The network's errors, in the words of the C library.
var (
	ErrNoSuchHost        = errors.New("NXDOMAIN")
	ErrConnectionRefused = errors.New("Connection refused")
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
	ns := s.env.Network.Nameserver()
	fmt.Fprintf(s.stdout, "Server:\t\t%s\nAddress:\t%s:53\n\n", ns, ns)
	fqdn, addrs, err := s.env.Network.LookupHost(s.ctx, name)
	if err != nil {
		fmt.Fprintf(s.stdout, "** server can't find %s: %s\n\n", name, err)
		return 1
	}
	for _, a := range addrs {
		fmt.Fprintf(s.stdout, "Name:\t%s\nAddress: %s\n\n", fqdn, a)
	}
	return 0
}

func (s *state) wget(args []string) int {
	quiet, out, target := false, "", ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-q":
			quiet = true
		case a == "-qO-" || a == "-qO" && i+1 < len(args) && args[i+1] == "-":
			quiet, out = true, "-"
			if a == "-qO" {
				i++
			}
		case a == "-O" && i+1 < len(args):
			out = args[i+1]
			i++
		case strings.HasPrefix(a, "-O"):
			out = a[2:]
		case a == "-T" && i+1 < len(args):
			i++ // the simulated network answers at once
		case strings.HasPrefix(a, "-"):
		default:
			target = a
		}
	}
	if target == "" {
		fmt.Fprintln(s.stderr, "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]\n\t[--post-data STR | --post-file FILE] [-Y on/off]\n\t[-P DIR] [-U AGENT] [-T SEC] URL...")
		return 1
	}
	raw := target
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		fmt.Fprintf(s.stderr, "wget: not an http or ftp url: %s\n", target)
		return 1
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
		if s.env.Network == nil {
			fmt.Fprintf(s.stderr, "wget: bad address '%s'\n", host)
			return 1
		}
		_, addrs, err := s.env.Network.LookupHost(s.ctx, host)
		if err != nil || len(addrs) == 0 {
			fmt.Fprintf(s.stderr, "wget: bad address '%s'\n", host)
			return 1
		}
		ip = addrs[0]
	}
	if !quiet {
		fmt.Fprintf(s.stderr, "Connecting to %s (%s:%s)\n", u.Host, ip, port)
	}
	path := u.RequestURI()
	var code int
	var body []byte
	if s.env.Network == nil {
		err = ErrConnectionRefused
	} else {
		code, body, err = s.env.Network.HTTPGet(s.ctx, u.Scheme, ip, port, path)
	}
	if err != nil {
		fmt.Fprintf(s.stderr, "wget: can't connect to remote host (%s): %s\n", ip, err)
		return 1
	}
	if code >= 400 {
		fmt.Fprintf(s.stderr, "wget: server returned error: HTTP/1.1 %d %s\n", code, httpStatusText(code))
		return 1
	}
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
	if !quiet {
		if out == "-" {
			fmt.Fprintln(s.stderr, "writing to stdout")
		} else {
			fmt.Fprintf(s.stderr, "saving to '%s'\n", out)
		}
	}
	w.Write(body)
	if !quiet {
		if out == "-" {
			fmt.Fprintln(s.stderr, "written to stdout")
		} else {
			fmt.Fprintf(s.stderr, "'%s' saved\n", out)
		}
	}
	return 0
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
