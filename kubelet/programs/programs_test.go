package programs

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/kubelet/podnet"
)

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		image, name, tag string
		ok               bool
	}{
		{"nginx", "nginx", "latest", true},
		{"docker.io/library/nginx:1.27", "nginx", "1.27", true},
		{"nginx@sha256:abc", "nginx", "latest", true},
		{"registry.k8s.io/busybox", "busybox", "latest", true},
		{"registry.k8s.io/e2e-test-images/agnhost:2.39", "agnhost", "2.39", true},
		{"registry.k8s.io/e2e-test-images/busybox:1.36.1-1", "busybox", "1.36.1-1", true},
		{"registry.k8s.io/e2e-test-images/httpd:2.4.38-4", "httpd", "2.4.38-4", true},
		{"kubesim/sleep", SleepImage, "latest", true},
		{"perl:5.34.0", "perl", "5.34.0", true},
		{"quay.io/jetstack/cert-manager-startupapicheck:v1.19.1", "cert-manager-startupapicheck", "v1.19.1", true},
		{"registry.k8s.io/nginx-slim:0.21", "nginx-slim", "0.21", true},
		{"gcr.io/google-samples/kubernetes-bootcamp:v1", "kubernetes-bootcamp", "v1", true},
		{"fluent/fluent-bit:3.0", "fluent/fluent-bit", "3.0", true},
		{"registry.k8s.io/metrics-server/metrics-server:v0.8.0", "registry.k8s.io/metrics-server/metrics-server", "v0.8.0", true},
		{"kubesim/metrics-server", "kubesim/metrics-server", "latest", true},
		{"example.com/app:1", "", "", false},
		{"fluent-bit:3.0", "", "", false},
	} {
		img, ok := Lookup(tc.image)
		assert.Equal(t, tc.ok, ok, tc.image)
		assert.Equal(t, tc.name, img.Name, tc.image)
		assert.Equal(t, tc.tag, img.Tag, tc.image)
	}
}

// command replaces the entrypoint (and drops the cmd), args replace the
// cmd, as the runtime builds a container's process.
func TestArgv(t *testing.T) {
	nginx, _ := Lookup("nginx")
	assert.Equal(t, []string{"/docker-entrypoint.sh", "nginx", "-g", "daemon off;"}, nginx.Argv(nil, nil))
	assert.Equal(t, []string{"/docker-entrypoint.sh", "nginx-debug"}, nginx.Argv(nil, []string{"nginx-debug"}))
	assert.Equal(t, []string{"sh", "-c", "x"}, nginx.Argv([]string{"sh"}, []string{"-c", "x"}))
	busybox, _ := Lookup("busybox:1.36")
	assert.Equal(t, []string{"sh"}, busybox.Argv(nil, nil))
	assert.Equal(t, []string{"sleep", "10"}, busybox.Argv(nil, []string{"sleep", "10"}))
}

func TestHas(t *testing.T) {
	busybox, _ := Lookup("busybox")
	nginx, _ := Lookup("nginx:1.27")
	alpineNginx, _ := Lookup("nginx:1.27-alpine")
	pause, _ := Lookup("registry.k8s.io/pause:3.10")
	for _, tc := range []struct {
		img  Image
		name string
		has  bool
	}{
		{busybox, "sh", true}, {busybox, "/bin/sh", true}, {busybox, "wget", true}, {busybox, "ash", true},
		{busybox, "bash", false}, {busybox, "/bin/bash", false}, {busybox, "perl", false}, {busybox, "/app/server", false},
		{nginx, "nginx", true}, {nginx, "/usr/sbin/nginx", true}, {nginx, "/docker-entrypoint.sh", true}, {nginx, "bash", true},
		{nginx, "docker-entrypoint.sh", false}, {alpineNginx, "bash", false},
		{pause, "/pause", true}, {pause, "sh", false},
	} {
		assert.Equal(t, tc.has, tc.img.Has(tc.name), "%s has %s", tc.img.Name+":"+tc.img.Tag, tc.name)
	}
}

func TestStartError(t *testing.T) {
	assert.Equal(t, `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: `+
		`unable to start container process: error during container init: exec: "perl": executable file not found in $PATH: unknown`, StartError("perl"))
	assert.Contains(t, StartError("/app"), `exec: "/app": stat /app: no such file or directory: unknown`)
}

// Pi is what Math::BigFloat's bpi prints: N significant digits, rounded.
func TestPi(t *testing.T) {
	assert.Equal(t, "3", Pi(1))
	assert.Equal(t, "3.1", Pi(2))
	assert.Equal(t, "3.141592654", Pi(10))
	assert.Equal(t, "3.1415926535897932385", Pi(20))
	pi := Pi(2000)
	assert.Len(t, pi, 2001)
	assert.True(t, strings.HasPrefix(pi, "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745028410270193852110555964462294895493038196"))
}

func TestPerlStatements(t *testing.T) {
	for _, tc := range []struct {
		prog   string
		bignum bool
		out    string
		ok     bool
	}{
		{"print bpi(10)", true, "3.141592654", true},
		{"print bpi(10)", false, "", false},
		{`print "hello\n"`, false, "hello\n", true},
		{`print 'a', "b"; print 6*7`, false, "ab42", true},
		{"print((2+3)*4)", false, "20", true},
		{"print 1/3", false, "", false},
		{`print "$x"`, false, "", false},
		{"my $x = 1", false, "", false},
	} {
		stmts, ok := perlStatements(tc.prog, tc.bignum)
		assert.Equal(t, tc.ok, ok, tc.prog)
		var out strings.Builder
		for _, st := range stmts {
			s, _ := st.eval()
			out.WriteString(s)
		}
		assert.Equal(t, tc.out, out.String(), tc.prog)
	}
}

// serve runs srv on one end of a simulated connection and returns the
// other, and what the server logs.
func serve(t *testing.T, srv Server) (io.ReadWriteCloser, *[]string) {
	t.Helper()
	return serveFiles(t, srv, nil)
}

// serveFiles is serve for a container whose filesystem is files.
func serveFiles(t *testing.T, srv Server, files Files) (io.ReadWriteCloser, *[]string) {
	t.Helper()
	client, server := podnet.Pipe("127.0.0.1:50000", "10.244.0.5:1")
	logs := &[]string{}
	go srv.Serve(&Conn{Conn: server, Now: func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) },
		Memory: &Memory{}, Log: func(l string) { *logs = append(*logs, l) }, Files: files})
	t.Cleanup(func() { client.Close() })
	return client, logs
}

// nginx answers requests one after the other on a connection, HEAD
// without a body, and a request that does not parse with 400.
func TestNginxServer(t *testing.T) {
	c, logs := serve(t, nginxServer{version: "1.27.5"})
	br := bufio.NewReader(c)
	fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: x\r\nUser-Agent: curl/8.5.0\r\n\r\n")
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, NginxWelcome, string(body))
	assert.Equal(t, "nginx/1.27.5", resp.Header.Get("Server"))
	assert.Equal(t, "Thu, 02 Jan 2025 03:04:05 GMT", resp.Header.Get("Date"))
	assert.Equal(t, "keep-alive", resp.Header.Get("Connection"))
	fmt.Fprint(c, "HEAD /nope HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err = http.ReadResponse(br, &http.Request{Method: http.MethodHead})
	require.NoError(t, err)
	assert.Equal(t, 404, resp.StatusCode)
	assert.Equal(t, "153", resp.Header.Get("Content-Length"))
	fmt.Fprint(c, "NONSENSE\r\n\r\n")
	resp, err = http.ReadResponse(br, nil)
	require.NoError(t, err)
	assert.Equal(t, 400, resp.StatusCode)
	assert.Equal(t, []string{
		`127.0.0.1 - - [02/Jan/2025:03:04:05 +0000] "GET / HTTP/1.1" 200 615 "-" "curl/8.5.0" "-"`,
		`127.0.0.1 - - [02/Jan/2025:03:04:05 +0000] "HEAD /nope HTTP/1.1" 404 0 "-" "-" "-"`,
	}, *logs)
}

// fakeFiles is a container's filesystem for a server: files, and the
// mount points of volumes.
type fakeFiles struct {
	files  map[string]string
	mounts []string
}

func (f fakeFiles) ReadFile(name string) ([]byte, bool) {
	data, ok := f.files[name]
	return []byte(data), ok
}

func (f fakeFiles) IsDir(name string) bool {
	for p := range f.files {
		if strings.HasPrefix(p, name+"/") {
			return true
		}
	}
	return false
}

func (f fakeFiles) OnMount(name string) bool {
	for _, m := range f.mounts {
		if name == m || strings.HasPrefix(name, m+"/") {
			return true
		}
	}
	return false
}

// nginx serves its document root as the container's files hold it: a
// page written there (the StatefulSet tutorial's echo $(hostname) >
// index.html); with a volume over it, what the volume holds, 403 for its
// root without an index and 404 for a file it lacks; else its own pages.
func TestNginxServesItsDocumentRoot(t *testing.T) {
	get := func(files Files, path string) (int, string) {
		c, _ := serveFiles(t, nginxServer{version: "1.27.5"}, files)
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	written := fakeFiles{files: map[string]string{"/usr/share/nginx/html/index.html": "web-0\n"}}
	for _, tc := range []struct {
		name  string
		files Files
		path  string
		code  int
		body  string
	}{
		{"a page written there", written, "/", 200, "web-0\n"},
		{"by its name", written, "/index.html", 200, "web-0\n"},
		{"a volume over it, with the page", fakeFiles{files: written.files, mounts: []string{"/usr/share/nginx/html"}}, "/", 200, "web-0\n"},
		{"an empty volume: no index", fakeFiles{mounts: []string{"/usr/share/nginx/html"}}, "/", 403, "<title>403 Forbidden</title>"},
		{"an empty volume: no file", fakeFiles{mounts: []string{"/usr/share/nginx/html"}}, "/missing.html", 404, "<title>404 Not Found</title>"},
		{"nothing there: its welcome page", fakeFiles{}, "/", 200, "Welcome to nginx!"},
		{"no files at all", nil, "/", 200, "Welcome to nginx!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := get(tc.files, tc.path)
			assert.Equal(t, tc.code, code)
			assert.Contains(t, body, tc.body)
		})
	}
}

// redis-server answers RESP and inline commands, keeping its keys.
func TestRedisServer(t *testing.T) {
	c, _ := serve(t, redisServerProto{version: "7.4.2", port: 6379})
	br := bufio.NewReader(c)
	ask := func(req string) string {
		t.Helper()
		_, err := io.WriteString(c, req)
		require.NoError(t, err)
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		if strings.HasPrefix(line, "$") && line != "$-1\r\n" {
			rest, err := br.ReadString('\n')
			require.NoError(t, err)
			line += rest
		}
		return line
	}
	assert.Equal(t, "+PONG\r\n", ask("*1\r\n$4\r\nPING\r\n"))
	assert.Equal(t, "+PONG\r\n", ask("PING\r\n"), "an inline command")
	assert.Equal(t, "$2\r\nhi\r\n", ask("*2\r\n$4\r\nping\r\n$2\r\nhi\r\n"))
	assert.Equal(t, "$-1\r\n", ask("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"))
	assert.Equal(t, "+OK\r\n", ask("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"))
	assert.Equal(t, "$1\r\nv\r\n", ask("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"))
	assert.Equal(t, ":1\r\n", ask("INCR n\r\n"))
	assert.Equal(t, "-ERR value is not an integer or out of range\r\n", ask("INCR k\r\n"))
	assert.Equal(t, "-ERR unknown command 'frob', with args beginning with: 'a' \r\n", ask("frob a\r\n"))
	assert.Equal(t, "-ERR wrong number of arguments for 'get' command\r\n", ask("GET\r\n"))
	assert.Equal(t, "+OK\r\n", ask("QUIT\r\n"))
	_, err := br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "QUIT closes the connection")

	c, _ = serve(t, redisServerProto{version: "7.4.2", port: 6379, password: "s3cret"})
	br = bufio.NewReader(c)
	assert.Equal(t, "-NOAUTH Authentication required.\r\n", ask("PING\r\n"))
	assert.Equal(t, "-WRONGPASS invalid username-password pair or user is disabled.\r\n", ask("AUTH nope\r\n"))
	assert.Equal(t, "+OK\r\n", ask("AUTH s3cret\r\n"))
	assert.Equal(t, "+PONG\r\n", ask("PING\r\n"))
}

// mongoRequest frames a command as an OP_MSG (or, legacy, an OP_QUERY on
// admin.$cmd).
func mongoRequest(id int32, cmd bsonDoc, legacy bool) []byte {
	var body []byte
	op := int32(opMsg)
	if legacy {
		op = opQuery
		body = binary.LittleEndian.AppendUint32(nil, 0)
		body = append(body, "admin.$cmd\x00"...)
		body = binary.LittleEndian.AppendUint32(body, 0)
		body = binary.LittleEndian.AppendUint32(body, uint32(0xffffffff))
		body = append(body, encodeBSON(cmd)...)
	} else {
		body = binary.LittleEndian.AppendUint32(nil, 0)
		body = append(body, 0)
		body = append(body, encodeBSON(cmd)...)
	}
	msg := binary.LittleEndian.AppendUint32(nil, uint32(16+len(body)))
	msg = binary.LittleEndian.AppendUint32(msg, uint32(id))
	msg = binary.LittleEndian.AppendUint32(msg, 0)
	msg = binary.LittleEndian.AppendUint32(msg, uint32(op))
	return append(msg, body...)
}

// readMongoReply reads a reply and returns its opcode, responseTo and
// document.
func readMongoReply(t *testing.T, r io.Reader) (int32, int32, bsonDoc) {
	t.Helper()
	head := make([]byte, 16)
	_, err := io.ReadFull(r, head)
	require.NoError(t, err)
	body := make([]byte, binary.LittleEndian.Uint32(head)-16)
	_, err = io.ReadFull(r, body)
	require.NoError(t, err)
	op := int32(binary.LittleEndian.Uint32(head[12:]))
	skip := 5 // OP_MSG: flagBits, section kind
	if op == opReply {
		skip = 20
	}
	d, _, err := decodeBSON(body[skip:])
	require.NoError(t, err)
	return op, int32(binary.LittleEndian.Uint32(head[8:])), d
}

// mongod answers a driver's handshake (legacy OP_QUERY isMaster or
// OP_MSG hello) and ping, and CommandNotFound for what it does not know.
func TestMongoServer(t *testing.T) {
	c, logs := serve(t, &mongoServer{version: "4.2.24", legacyLog: true, bind: "0.0.0.0", port: 27017, host: "mongo-0"})
	_, err := c.Write(mongoRequest(1, bsonDoc{{"isMaster", int32(1)}, {"helloOk", true}}, true))
	require.NoError(t, err)
	op, to, d := readMongoReply(t, c)
	assert.Equal(t, int32(opReply), op)
	assert.Equal(t, int32(1), to)
	assert.Equal(t, true, d.get("ismaster"))
	assert.Equal(t, true, d.get("helloOk"))
	assert.Equal(t, int32(8), d.get("maxWireVersion"))
	assert.Equal(t, 1.0, d.get("ok"))

	_, err = c.Write(mongoRequest(2, bsonDoc{{"ping", int32(1)}, {"$db", "admin"}}, false))
	require.NoError(t, err)
	op, to, d = readMongoReply(t, c)
	assert.Equal(t, int32(opMsg), op)
	assert.Equal(t, int32(2), to)
	assert.Equal(t, bsonDoc{{"ok", 1.0}}, d, "{ ok: 1 }")

	_, err = c.Write(mongoRequest(3, bsonDoc{{"frobnicate", int32(1)}, {"$db", "admin"}}, false))
	require.NoError(t, err)
	_, _, d = readMongoReply(t, c)
	assert.Equal(t, 0.0, d.get("ok"))
	assert.Equal(t, "no such command: 'frobnicate'", d.get("errmsg"))
	assert.Equal(t, "CommandNotFound", d.get("codeName"))
	assert.Equal(t, []string{"2025-01-02T03:04:05.000+0000 I  NETWORK  [listener] connection accepted from 127.0.0.1:50000 #1 (1 connection now open)"}, *logs)
}

// Every type the codec knows comes back as it went.
func TestBSONRoundTrip(t *testing.T) {
	d := bsonDoc{{"f", 1.5}, {"s", "x"}, {"d", bsonDoc{{"a", int32(1)}}}, {"arr", []any{"a", int64(2)}}, {"b", []byte{1, 2}},
		{"id", bsonObjectID{1}}, {"t", true}, {"when", time.UnixMilli(1700000000123).UTC()}, {"n", nil}, {"ts", bsonTimestamp(7)}}
	got, n, err := decodeBSON(encodeBSON(d))
	require.NoError(t, err)
	assert.Equal(t, len(encodeBSON(d)), n)
	assert.Equal(t, d, got)
	_, _, err = decodeBSON([]byte{5, 0, 0, 0, 1})
	assert.Error(t, err, "not ended by a zero")
	_, _, err = decodeBSON([]byte{12, 0, 0, 0, 2, 'k', 0, 200, 0, 0, 0, 0})
	assert.Error(t, err, "a string longer than its document")
}
