package programs

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/kubesim/kubesim/kubelet/shell"
)

// nginx's image (docker-library's): /docker-entrypoint.sh runs the
// configuration scripts of /docker-entrypoint.d when it starts nginx,
// then nginx -g 'daemon off;' serves the welcome page on port 80 and
// writes its access log to stdout.
var nginxImage = Image{Entrypoint: []string{"/docker-entrypoint.sh"}, Cmd: []string{"nginx", "-g", "daemon off;"},
	Shell: true, Bash: true, Curl: true, Dirs: []string{nginxRoot}, alpineTags: true,
	programs: map[string]Program{
		"/docker-entrypoint.sh": nginxEntrypoint,
		"nginx":                 nginxProgram,
		"nginx-debug":           nginxProgram,
	}}

// registry.k8s.io/nginx-slim, the StatefulSet tutorial's image: nginx
// without the entrypoint scripts, serving as nginx's image does.
var nginxSlimImage = Image{Cmd: []string{"nginx", "-g", "daemon off;"}, Shell: true, Bash: true, Curl: true, Dirs: []string{nginxRoot},
	programs: map[string]Program{"nginx": nginxProgram}}

// nginxVersions are the last releases of the branches, for a tag that
// names a branch ("1.27", "1.27-alpine").
var nginxVersions = map[string]string{
	"1.19": "1.19.10", "1.20": "1.20.2", "1.21": "1.21.6", "1.22": "1.22.1", "1.23": "1.23.4",
	"1.24": "1.24.0", "1.25": "1.25.5", "1.26": "1.26.3", "1.27": "1.27.5", "1.28": "1.28.0", "1.29": "1.29.0",
}

// nginxVersion is the version an nginx tag runs: the tag's own
// ("1.25.3"), its branch's last release ("1.25"), or the mainline's.
func nginxVersion(tag string) string {
	v, _, _ := strings.Cut(tag, "-")
	if strings.Count(v, ".") == 2 && strings.Trim(v, "0123456789.") == "" {
		return v
	}
	if full, ok := nginxVersions[v]; ok {
		return full
	}
	return "1.27.5"
}

// nginxEntrypoint is nginx's /docker-entrypoint.sh: when it starts nginx
// it says what its configuration scripts do; then it execs its arguments.
func nginxEntrypoint(ctx context.Context, r Run) int {
	p := r.Process
	args := p.Args[1:]
	if len(args) > 0 && (args[0] == "nginx" || args[0] == "nginx-debug") {
		for _, l := range []string{
			"/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
			"/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
			"/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
			"10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf",
			"10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf",
			"/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh",
			"/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh",
			"/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh",
			"/docker-entrypoint.sh: Configuration complete; ready for start up",
		} {
			fmt.Fprintln(p.Stdout, l)
		}
	}
	// A /bin/sh script (dash): its errors are "SCRIPT: LINE: …".
	return execArgs(p, args, "/docker-entrypoint.sh: 47")
}

// execArgs is an entrypoint script's `exec "$@"`: the program runs in
// its place, or the script fails as its shell says when the program is
// not there (where names the script and the line, in the shell's words).
func execArgs(p shell.Process, args []string, where string) int {
	if len(args) == 0 {
		return 0
	}
	code := p.Exec(args)
	if code == shell.ExitNotFound {
		fmt.Fprintf(p.Stderr, "%s: exec: %s: not found\n", where, args[0])
	}
	return code
}

// nginxWorkers is how many worker processes nginx starts
// (worker_processes auto: one per CPU of a simulated node).
const nginxWorkers = 4

// nginxProgram is nginx: -v, -V and -t say what they say; with
// `-g 'daemon off;'` it serves in the foreground until killed; without,
// it goes to the background and the container's process ends at once
// (the classic `command: [nginx]` mistake: the container completes and
// is restarted).
func nginxProgram(ctx context.Context, r Run) int {
	p, h, version := r.Process, r.Host, nginxVersion(r.Tag)
	foreground := false
	for i := 1; i < len(p.Args); i++ {
		switch a := p.Args[i]; a {
		case "-v":
			fmt.Fprintf(p.Stderr, "nginx version: nginx/%s\n", version)
			return 0
		case "-V":
			fmt.Fprintf(p.Stderr, "nginx version: nginx/%s\nbuilt by gcc 12.2.0 (Debian 12.2.0-14)\nbuilt with OpenSSL 3.0.15 3 Sep 2024\nTLS SNI support enabled\n", version)
			return 0
		case "-t", "-T":
			fmt.Fprintln(p.Stderr, "nginx: the configuration file /etc/nginx/nginx.conf syntax is ok")
			fmt.Fprintln(p.Stderr, "nginx: configuration file /etc/nginx/nginx.conf test is successful")
			return 0
		case "-s":
			fmt.Fprintln(p.Stderr, `nginx: [notice] signal process started`)
			return 0
		case "-g":
			if i+1 < len(p.Args) {
				i++
				if strings.Contains(strings.ReplaceAll(p.Args[i], " ", ""), "daemonoff;") {
					foreground = true
				}
			}
		}
	}
	now := p.Clock.Now().UTC().Format("2006/01/02 15:04:05")
	notice := func(format string, args ...any) {
		fmt.Fprintf(p.Stderr, "%s [notice] 1#1: %s\n", now, fmt.Sprintf(format, args...))
	}
	if !foreground {
		return 0 // the master went to the background
	}
	notice(`using the "epoll" event method`)
	notice("nginx/%s", version)
	notice("built by gcc 12.2.0 (Debian 12.2.0-14) ")
	notice("OS: Linux 6.8.0-kubesim")
	notice("getrlimit(RLIMIT_NOFILE): 1048576:1048576")
	notice("start worker processes")
	for i := range nginxWorkers {
		notice("start worker process %d", 29+i)
	}
	h.Listen(80, nginxServer{version: version})
	return serveUntilKilled(ctx, p)
}

// serveUntilKilled is a server's main loop: it waits until the process
// is killed (for ever, on a container's own simulated clock).
func serveUntilKilled(ctx context.Context, p shell.Process) int {
	select {
	case <-p.Clock.After(shell.Forever):
		return 0
	case <-ctx.Done():
		return 137
	}
}

// nginxServer is nginx's default server: the welcome page at / (and
// /index.html), its 50x page, nginx's 404 for anything else; GET and
// HEAD only. Each request is a line of the access log, in the image's
// "main" format.
type nginxServer struct{ version string }

// nginxBuilt is when the image's welcome page was written (its
// Last-Modified).
var nginxBuilt = time.Date(2025, 4, 16, 12, 55, 34, 0, time.UTC)

func (s nginxServer) Serve(c *Conn) {
	server := "nginx/" + s.version
	serveHTTP(c, server, func(c *Conn, r *http.Request) response {
		resp := s.answer(c.Files, r)
		ref, ua := r.Referer(), r.UserAgent()
		if ref == "" {
			ref = "-"
		}
		if ua == "" {
			ua = "-"
		}
		c.Log(fmt.Sprintf(`%s - - [%s] "%s %s %s" %d %d "%s" "%s" "-"`, c.client(), c.Now().UTC().Format("02/Jan/2006:15:04:05 -0700"),
			r.Method, r.RequestURI, r.Proto, resp.code, bodySize(r, resp), ref, ua))
		return resp
	})
}

// nginxRoot is the default server's document root.
const nginxRoot = "/usr/share/nginx/html"

// answer is nginx's response to r: a page of the document root as the
// container's files hold it, else the image's own pages.
func (s nginxServer) answer(files Files, r *http.Request) response {
	page := func(code int, body string) response {
		return response{code: code, header: http.Header{"Content-Type": {"text/html"}}, body: []byte(body)}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return page(http.StatusMethodNotAllowed, NginxErrorPage(http.StatusMethodNotAllowed, s.version))
	}
	if code, body, ok := s.fromRoot(files, r.URL.Path); ok {
		return page(code, body)
	}
	switch r.URL.Path {
	case "/", "/index.html":
		resp := page(http.StatusOK, NginxWelcome)
		resp.header.Set("Last-Modified", nginxBuilt.Format(http.TimeFormat))
		resp.header.Set("Etag", fmt.Sprintf(`"%x-%x"`, nginxBuilt.Unix(), len(NginxWelcome)))
		resp.header.Set("Accept-Ranges", "bytes")
		return resp
	case "/50x.html":
		return page(http.StatusOK, nginx50x)
	}
	return page(http.StatusNotFound, NginxErrorPage(http.StatusNotFound, s.version))
}

// fromRoot is what nginx serves from its document root as the
// container's files hold it: a file written there through kubectl exec or
// cp, a ConfigMap's, or one kept by a volume mounted there (the
// StatefulSet tutorial's web-0 serving the index.html it wrote on its
// claim). A volume hides the image's own pages: an empty one answers 403
// for a directory (no index.html to list) and 404 for a file. ok is false
// when it is the image's own page that answers.
func (s nginxServer) fromRoot(files Files, reqPath string) (int, string, bool) {
	if files == nil {
		return 0, "", false
	}
	name := path.Join(nginxRoot, path.Clean("/"+reqPath))
	dir := strings.HasSuffix(reqPath, "/") || files.IsDir(name)
	if dir {
		name = path.Join(name, "index.html")
	}
	if data, ok := files.ReadFile(name); ok {
		return http.StatusOK, string(data), true
	}
	if !files.OnMount(nginxRoot) {
		return 0, "", false
	}
	if dir {
		return http.StatusForbidden, NginxErrorPage(http.StatusForbidden, s.version), true
	}
	return http.StatusNotFound, NginxErrorPage(http.StatusNotFound, s.version), true
}

// bodySize is $body_bytes_sent: nothing for a HEAD.
func bodySize(r *http.Request, resp response) int {
	if r.Method == http.MethodHead {
		return 0
	}
	return len(resp.body)
}

// NginxWelcome is the page nginx serves at / (index.html of the image).
const NginxWelcome = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p>For online documentation and support please refer to
<a href="http://nginx.org/">nginx.org</a>.<br/>
Commercial support is available at
<a href="http://nginx.com/">nginx.com</a>.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
`

const nginx50x = `<!DOCTYPE html>
<html>
<head>
<title>Error</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>An error occurred.</h1>
<p>Sorry, the page you are looking for is currently unavailable.<br/>
Please try again later.</p>
<p>If you are the system administrator of this resource then you should check
the error log for details.</p>
<p><em>Faithfully yours, nginx.</em></p>
</body>
</html>
`

// NginxErrorPage is nginx's built-in page for an error code, with its
// version (server_tokens on) and its CRLF line ends.
func NginxErrorPage(code int, version string) string {
	title := fmt.Sprintf("%d %s", code, http.StatusText(code))
	if code == http.StatusMethodNotAllowed {
		title = "405 Not Allowed"
	}
	return fmt.Sprintf("<html>\r\n<head><title>%s</title></head>\r\n<body>\r\n<center><h1>%s</h1></center>\r\n<hr><center>nginx/%s</center>\r\n</body>\r\n</html>\r\n",
		title, title, version)
}
