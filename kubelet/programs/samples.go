package programs

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/kubelet/shell"
)

// The tutorials' sample servers and kubesim's own images.

// Kubesim's own images, whose programs tests and scenarios use.
const (
	// SleepImage sleeps for its first argument (a duration such as 30s,
	// or seconds) and exits 0; with no argument it runs until killed.
	SleepImage = "kubesim/sleep"
	// FailImage exits with code 1 (or its second argument) after its
	// first argument (1s by default), saying so.
	FailImage = "kubesim/fail"
)

var sleepImage = Image{Entrypoint: []string{"/sleep"}, Shell: true, programs: map[string]Program{"/sleep": kubesimSleep}}

func kubesimSleep(ctx context.Context, r Run) int {
	p := r.Process
	d := shell.Forever
	if len(p.Args) > 1 {
		if v := ParseDuration(p.Args[1]); v >= 0 {
			d = v
		}
	}
	select {
	case <-p.Clock.After(d):
		return 0
	case <-ctx.Done():
		return 137
	}
}

var failImage = Image{Entrypoint: []string{"/fail"}, Shell: true, programs: map[string]Program{"/fail": kubesimFail}}

func kubesimFail(ctx context.Context, r Run) int {
	p := r.Process
	after, code := time.Second, 1
	if len(p.Args) > 1 {
		if d := ParseDuration(p.Args[1]); d >= 0 {
			after = d
		}
	}
	if len(p.Args) > 2 {
		if n, err := strconv.Atoi(p.Args[2]); err == nil && n > 0 && n < 256 {
			code = n
		}
	}
	fmt.Fprintf(p.Stdout, "failing in %s with exit code %d\n", after, code)
	select {
	case <-p.Clock.After(after):
	case <-ctx.Done():
		return 137
	}
	fmt.Fprintln(p.Stdout, "failed")
	return code
}

// ParseDuration reads a duration as sleep's operand: seconds (maybe
// fractional), or with s, m, h or d; infinity is shell.Forever, and what
// does not parse is 0. It is -1 for nothing at all.
func ParseDuration(s string) time.Duration {
	if s == "" {
		return -1
	}
	if s == "infinity" || s == "inf" {
		return shell.Forever
	}
	mult := time.Second
	switch {
	case strings.HasSuffix(s, "d"):
		mult, s = 24*time.Hour, strings.TrimSuffix(s, "d")
	case strings.HasSuffix(s, "h"):
		mult, s = time.Hour, strings.TrimSuffix(s, "h")
	case strings.HasSuffix(s, "m"):
		mult, s = time.Minute, strings.TrimSuffix(s, "m")
	case strings.HasSuffix(s, "s"):
		s = strings.TrimSuffix(s, "s")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f != f {
		return 0
	}
	if f*float64(mult) >= float64(shell.Forever) {
		return shell.Forever
	}
	return time.Duration(f * float64(mult))
}

// pause's image: /pause waits until killed (the sandbox's own process).
var pauseImage = Image{Entrypoint: []string{"/pause"}, programs: map[string]Program{"/pause": func(ctx context.Context, r Run) int {
	return serveUntilKilled(ctx, r.Process)
}}}

// httpd's image: Apache serves "It works!" on port 80 and writes its
// access log (common format) to stdout.
var httpdImage = Image{Cmd: []string{"httpd-foreground"}, Shell: true, Bash: true, alpineTags: true,
	programs: map[string]Program{"httpd-foreground": httpd, "httpd": httpd}}

func httpd(ctx context.Context, r Run) int {
	p, h, version := r.Process, r.Host, "2.4.63"
	if v := strings.SplitN(r.Tag, "-", 2)[0]; strings.Count(v, ".") == 2 && strings.Trim(v, "0123456789.") == "" {
		version = v
	}
	ts := p.Clock.Now().UTC().Format("Mon Jan 02 15:04:05.000000 2006")
	fmt.Fprintf(p.Stderr, "[%s] [mpm_event:notice] [pid 1:tid 1] AH00489: Apache/%s (Unix) configured -- resuming normal operations\n", ts, version)
	fmt.Fprintf(p.Stderr, "[%s] [core:notice] [pid 1:tid 1] AH00094: Command line: 'httpd -D FOREGROUND'\n", ts)
	h.Listen(80, httpdServer{server: "Apache/" + version + " (Unix)", index: "/index.html", page: "<html><body><h1>It works!</h1></body></html>\n"})
	return serveUntilKilled(ctx, p)
}

// httpdServer is Apache serving one page, at / and its index file, with
// its access log (common format).
type httpdServer struct{ server, index, page string }

func (s httpdServer) Serve(c *Conn) {
	serveHTTP(c, s.server, func(c *Conn, r *http.Request) response {
		resp := response{code: http.StatusOK, header: http.Header{"Content-Type": {"text/html"}}, body: []byte(s.page)}
		if r.URL.Path != "/" && r.URL.Path != s.index {
			resp = response{code: http.StatusNotFound, header: http.Header{"Content-Type": {"text/html; charset=iso-8859-1"}},
				body: []byte("<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n</body></html>\n")}
		}
		c.Log(fmt.Sprintf(`%s - - [%s] "%s %s %s" %d %d`, c.client(), c.Now().UTC().Format("02/Jan/2006:15:04:05 -0700"),
			r.Method, r.RequestURI, r.Proto, resp.code, bodySize(r, resp)))
		return resp
	})
}

// textServer answers every GET with a text its handler makes.
type textServer struct {
	server string
	text   func(c *Conn, r *http.Request) (int, string)
	log    func(c *Conn, r *http.Request, code, size int) string
}

func (s textServer) Serve(c *Conn) {
	serveHTTP(c, s.server, func(c *Conn, r *http.Request) response {
		code, body := s.text(c, r)
		resp := response{code: code, body: []byte(body)}
		if s.log != nil {
			c.Log(s.log(c, r, code, bodySize(r, resp)))
		}
		return resp
	})
}

// serve_hostname (registry.k8s.io/serve_hostname, the Debug Services
// tutorial's): the pod's hostname on port 9376.
var serveHostnameImage = Image{Entrypoint: []string{"/serve_hostname"}, programs: map[string]Program{"/serve_hostname": serveHostname}}

func serveHostname(ctx context.Context, r Run) int {
	p, h := r.Process, r.Host
	port := 9376
	for _, a := range p.Args[1:] {
		if v, ok := strings.CutPrefix(strings.TrimLeft(a, "-"), "port="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				port = n
			}
		}
	}
	h.Listen(port, hostnameServer(p.Getenv("HOSTNAME")))
	return serveUntilKilled(ctx, p)
}

func hostnameServer(host string) Server {
	return textServer{text: func(*Conn, *http.Request) (int, string) { return http.StatusOK, host + "\n" }}
}

// agnhost (registry.k8s.io/e2e-test-images/agnhost), Kubernetes' test
// image, by its subcommand: serve-hostname (9376), netexec (8080: /,
// /hostname, /echo?msg=, /clientip), liveness (8080: /healthz answers 200
// for 10 seconds, then 500), entrypoint-tester (prints its argv),
// etc-hosts (prints /etc/hosts), test-webserver (80: the container's
// files by path), mounttest (mounttest.go), webhook
// (webhook.go), crd-conversion-webhook (conversion.go), pause; any other
// is cobra's unknown command.
//
// The image runs /agnhost pause by default (its Dockerfile's ENTRYPOINT
// and CMD), and has /agnhost-2 too, a copy the Containers specs run to
// override the entrypoint.
var agnhostImage = Image{Entrypoint: []string{"/agnhost"}, Cmd: []string{"pause"}, Shell: true,
	programs: map[string]Program{"/agnhost": agnhost, "/agnhost-2": agnhost}}

func agnhost(ctx context.Context, r Run) int {
	p, h := r.Process, r.Host
	if len(p.Args) < 2 {
		fmt.Fprint(p.Stdout, "Usage:\n  app [command]\n\nAvailable Commands:\n  crd-conversion-webhook Starts an HTTP server, useful for testing CustomResourceDefinition conversion webhooks\n  entrypoint-tester Prints the command line it was started with\n  etc-hosts       Prints the host's /etc/hosts file\n  liveness        Starts a server that answers 200 on /healthz for 10 seconds, then 500\n"+
			"  mounttest       Creates files with given permissions and outputs FS type, owner, mode, permissions, contents of files\n"+
			"  netexec         Creates HTTP(S), UDP, and (optionally) SCTP servers with various endpoints\n  pause           Pauses the execution\n"+
			"  serve-hostname  Serves the hostname\n  test-webserver  Starts a simple HTTP fileserver on the given --port\n  webhook         Starts a HTTP server, useful for testing MutatingAdmissionWebhook and ValidatingAdmissionWebhook\n\nUse \"app [command] --help\" for more information about a command.\n")
		return 0
	}
	host := p.Getenv("HOSTNAME")
	port := func(flag string, def int) int {
		for i, a := range p.Args[2:] {
			name, v, ok := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if name != flag {
				continue
			}
			if !ok && i+3 < len(p.Args) {
				v = p.Args[i+3]
			}
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
		return def
	}
	switch p.Args[1] {
	case "serve-hostname":
		h.Listen(port("port", 9376), hostnameServer(host))
	case "netexec":
		started := p.Clock.Now()
		fmt.Fprintf(p.Stderr, "I%s       1 log.go:245] Started HTTP server on port %d\n", started.UTC().Format("0102 15:04:05.000000"), port("http-port", 8080))
		h.Listen(port("http-port", 8080), textServer{text: func(c *Conn, r *http.Request) (int, string) {
			switch r.URL.Path {
			case "/hostname":
				return http.StatusOK, host
			case "/echo":
				return http.StatusOK, r.URL.Query().Get("msg")
			case "/clientip":
				return http.StatusOK, c.RemoteAddr().String()
			case "/", "":
				return http.StatusOK, "NOW: " + c.Now().Format("2006-01-02 15:04:05.999999999 -0700 MST")
			}
			return http.StatusNotFound, "404 page not found\n"
		}})
	case "liveness":
		h.Listen(port("port", 8080), livenessServer{})
	case "mounttest":
		return mounttest(ctx, p, p.Args[2:])
	case "test-webserver":
		h.Listen(port("port", 80), testWebserver{})
	case "entrypoint-tester":
		// Prints its whole argv, as Go prints a []string.
		fmt.Fprintf(p.Stdout, "%v\n", p.Args)
		return 0
	case "etc-hosts":
		// Prints the hosts file (fmt.Println of it: one more newline).
		if p.FS == nil {
			return 1
		}
		data, err := p.FS.ReadFile("/etc/hosts")
		if err != nil {
			fmt.Fprintf(p.Stderr, "panic: %v\n", err)
			return 2
		}
		fmt.Fprintln(p.Stdout, string(data))
		return 0
	case "webhook":
		return agnhostWebhook(ctx, r, p.Args[2:])
	case "crd-conversion-webhook":
		return agnhostConversionWebhook(ctx, r, p.Args[2:])
	case "pause":
		fmt.Fprintln(p.Stdout, "Paused")
	default:
		fmt.Fprintf(p.Stderr, "Error: unknown command %q for \"app\"\nRun 'app --help' for usage.\n", p.Args[1])
		return 1
	}
	return serveUntilKilled(ctx, p)
}

// livenessServer is agnhost liveness: /healthz answers 200 for its
// first 10 seconds, then 500 (the liveness tutorial's HTTP example).
type livenessServer struct{}

// livenessHealthy is how long agnhost liveness answers 200.
const livenessHealthy = 10 * time.Second

func (livenessServer) Serve(c *Conn) {
	textServer{text: func(c *Conn, r *http.Request) (int, string) {
		if r.URL.Path != "/healthz" {
			return http.StatusNotFound, "404 page not found\n"
		}
		if d := c.Now().Sub(c.Started); d > livenessHealthy {
			return http.StatusInternalServerError, fmt.Sprintf("error: %v", d.Seconds())
		}
		return http.StatusOK, "ok"
	}}.Serve(c)
}

// FailsAfter implements Unhealthy: /healthz fails once more than 10
// seconds have passed (a probe at 10s still succeeds).
func (livenessServer) FailsAfter(path string) (time.Duration, bool) {
	return livenessHealthy + time.Nanosecond, path == "/healthz"
}

// http-echo (hashicorp/http-echo, the ingress guides'): -text on every
// path, on -listen (:5678).
var httpEchoImage = Image{Entrypoint: []string{"/http-echo"}, programs: map[string]Program{"/http-echo": httpEcho}}

func httpEcho(ctx context.Context, r Run) int {
	p, h := r.Process, r.Host
	text, listen, hasText := "", ":5678", false
	for _, a := range p.Args[1:] {
		a = strings.TrimLeft(a, "-")
		if v, ok := strings.CutPrefix(a, "text="); ok {
			text, hasText = v, true
		} else if v, ok := strings.CutPrefix(a, "listen="); ok {
			listen = v
		}
	}
	ts := func() string { return p.Clock.Now().UTC().Format("2006/01/02 15:04:05") }
	if !hasText {
		fmt.Fprintf(p.Stderr, "%s [ERR] Missing -text option!\n", ts())
		return 127
	}
	port, err := strconv.Atoi(listen[strings.LastIndex(listen, ":")+1:])
	if err != nil {
		fmt.Fprintf(p.Stderr, "%s [ERR] Error starting server: listen tcp: address %s: missing port in address\n", ts(), listen)
		return 1
	}
	fmt.Fprintf(p.Stderr, "%s [INFO] server is listening on %s\n", ts(), listen)
	h.Listen(port, textServer{
		text: func(*Conn, *http.Request) (int, string) { return http.StatusOK, text + "\n" },
		log: func(c *Conn, r *http.Request, code, size int) string {
			return fmt.Sprintf(`%s %s %s "%s %s %s" %d %d "%s" 14.2µs`, c.Now().UTC().Format("2006/01/02 15:04:05"), r.Host,
				c.RemoteAddr(), r.Method, r.RequestURI, r.Proto, code, size, r.UserAgent())
		}})
	return serveUntilKilled(ctx, p)
}

// hello-app (Google's samples, the GKE and minikube tutorials'): "Hello,
// world!" with its version and the pod's hostname, on $PORT (8080).
var helloAppImage = Image{Entrypoint: []string{"/hello-app"}, programs: map[string]Program{"/hello-app": helloApp}}

func helloApp(ctx context.Context, r Run) int {
	p, h := r.Process, r.Host
	version := strings.SplitN(r.Tag, "-", 2)[0]
	if strings.Count(version, ".") == 1 {
		version += ".0"
	}
	if strings.Trim(version, "0123456789.") != "" {
		version = "1.0.0"
	}
	port := 8080
	if n, err := strconv.Atoi(p.Getenv("PORT")); err == nil {
		port = n
	}
	host := p.Getenv("HOSTNAME")
	fmt.Fprintf(p.Stderr, "%s Server listening on port %d\n", p.Clock.Now().UTC().Format("2006/01/02 15:04:05"), port)
	h.Listen(port, textServer{
		text: func(*Conn, *http.Request) (int, string) {
			return http.StatusOK, fmt.Sprintf("Hello, world!\nVersion: %s\nHostname: %s\n", version, host)
		},
		log: func(c *Conn, r *http.Request, _, _ int) string {
			return fmt.Sprintf("%s Serving request: %s", c.Now().UTC().Format("2006/01/02 15:04:05"), r.URL.Path)
		}})
	return serveUntilKilled(ctx, p)
}

// cert-manager's startupapicheck (its chart's post-install Job): `check
// api` says the API is ready once its webhook answers, and ends with 0.
var startupAPICheckImage = Image{Entrypoint: []string{startupAPICheckBin}, programs: map[string]Program{startupAPICheckBin: startupAPICheck}}

const startupAPICheckBin = "/app/cmd/startupapicheck/startupapicheck"

func startupAPICheck(ctx context.Context, r Run) int {
	p := r.Process
	if len(p.Args) < 3 || p.Args[1] != "check" || p.Args[2] != "api" {
		fmt.Fprintf(p.Stderr, "Error: unknown command %q for \"startupapicheck\"\n", strings.Join(p.Args[1:], " "))
		return 1
	}
	select {
	case <-p.Clock.After(2 * time.Second):
	case <-ctx.Done():
		return 137
	}
	fmt.Fprintln(p.Stdout, "The cert-manager API is ready")
	return 0
}

// kyverno's kyvernopre (the init container of its admission controller):
// it cleans up what an older release left and ends with 0.
var kyvernoPreImage = Image{Entrypoint: []string{"/kyvernopre"}, programs: map[string]Program{"/kyvernopre": kyvernoPre}}

func kyvernoPre(ctx context.Context, r Run) int {
	p := r.Process
	ts := p.Clock.Now().UTC().Format(time.RFC3339)
	fmt.Fprintf(p.Stdout, "%s INFO setup.maxprocs maxprocs/maxprocs.go:47 maxprocs: Leaving GOMAXPROCS=4: CPU quota undefined\n", ts)
	fmt.Fprintf(p.Stdout, "%s INFO setup logging/log.go:184 setup logger {\"version\": \"\"}\n", ts)
	select {
	case <-p.Clock.After(time.Second):
	case <-ctx.Done():
		return 137
	}
	return 0
}

// The Kubernetes Basics tutorial's bootcamp
// (gcr.io/google-samples/kubernetes-bootcamp, jocatalin/kubernetes-bootcamp
// on Docker Hub): node's image with the tutorial's server.js, which greets
// on 8080 with the pod's name and its version (the tag's number: v1, v2)
// and logs each request.
var bootcampImage = Image{Cmd: []string{"node", "server.js"}, Shell: true, Bash: true, Curl: true,
	programs: map[string]Program{"node": bootcamp}}

func bootcamp(ctx context.Context, r Run) int {
	p, h := r.Process, r.Host
	if len(p.Args) != 2 || p.Args[1] != "server.js" {
		fmt.Fprintln(p.Stderr, "node: kubesim simulates the bootcamp's server.js only")
		return 1
	}
	host := p.Getenv("HOSTNAME")
	version := strings.TrimPrefix(r.Tag, "v")
	if version == "latest" {
		version = "1"
	}
	// console.log of a Date: its ISO form.
	iso := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
	fmt.Fprintf(p.Stdout, "Kubernetes Bootcamp App Started At: %s | Running On:  %s \n\n", iso(p.Clock.Now()), host)
	h.Listen(8080, textServer{
		text: func(*Conn, *http.Request) (int, string) {
			return http.StatusOK, "Hello Kubernetes bootcamp! | Running on: " + host + " | v=" + version + "\n"
		},
		log: func(c *Conn, _ *http.Request, _, _ int) string {
			n := 0
			c.Memory.with(func(kv map[string]string) {
				n, _ = strconv.Atoi(kv["requests"])
				n++
				kv["requests"] = strconv.Itoa(n)
			})
			return fmt.Sprintf("Running On: %s | Total Requests: %d | App Uptime: %g seconds | Log Time: %s",
				host, n, c.Now().Sub(c.Started).Seconds(), iso(c.Now()))
		}})
	return serveUntilKilled(ctx, p)
}

// php-apache, the HorizontalPodAutoscaler walkthrough's image
// (registry.k8s.io/hpa-example): php's Apache image whose index.php does
// some arithmetic and answers "OK!".
var phpApacheImage = Image{Entrypoint: []string{"docker-php-entrypoint"}, Cmd: []string{"apache2-foreground"}, Shell: true, Bash: true, Curl: true,
	programs: map[string]Program{
		"docker-php-entrypoint": func(ctx context.Context, r Run) int {
			return execArgs(r.Process, r.Args[1:], "/usr/local/bin/docker-php-entrypoint: 9")
		},
		"apache2-foreground": phpApache,
	}}

func phpApache(ctx context.Context, r Run) int {
	p, h := r.Process, r.Host
	ts := p.Clock.Now().UTC().Format("Mon Jan 02 15:04:05.000000 2006")
	fmt.Fprintf(p.Stderr, "[%s] [mpm_prefork:notice] [pid 1] AH00163: Apache/2.4.10 (Debian) PHP/5.6.40 configured -- resuming normal operations\n", ts)
	fmt.Fprintf(p.Stderr, "[%s] [core:notice] [pid 1] AH00094: Command line: 'apache2 -D FOREGROUND'\n", ts)
	h.Listen(80, httpdServer{server: "Apache/2.4.10 (Debian)", index: "/index.php", page: "OK!"})
	return serveUntilKilled(ctx, p)
}

// curl's image (curlimages/curl): its entrypoint runs curl, given the
// container's arguments (an argument that starts with - is curl's).
var curlImage = Image{Entrypoint: []string{"/entrypoint.sh"}, Cmd: []string{"curl"}, Shell: true, Curl: true,
	programs: map[string]Program{"/entrypoint.sh": func(ctx context.Context, r Run) int {
		args := r.Args[1:]
		if len(args) > 0 && strings.HasPrefix(args[0], "-") {
			args = append([]string{"curl"}, args...)
		}
		return execArgs(r.Process, args, "/entrypoint.sh: 6")
	}}}

// radial/busyboxplus:curl, the Connecting Applications with Services
// tutorial's: busybox with curl, running sh.
var busyboxPlusImage = Image{Cmd: []string{"/bin/sh"}, Shell: true, Curl: true}

// testWebserver is agnhost test-webserver: the container's files, by
// their path, as Go's http.FileServer of / serves them.
type testWebserver struct{}

func (testWebserver) Serve(c *Conn) {
	serveHTTP(c, "", func(c *Conn, r *http.Request) response {
		h := http.Header{"Cache-Control": {"private"}, "Access-Control-Allow-Origin": {"*"}}
		if c.Files != nil {
			if data, ok := c.Files.ReadFile(path.Clean("/" + r.URL.Path)); ok {
				return response{code: http.StatusOK, header: h, body: data}
			}
		}
		return response{code: http.StatusNotFound, header: h, body: []byte("404 page not found\n")}
	})
}
