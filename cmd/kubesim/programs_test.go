package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubernetes.io's Job example, its commands as the "Jobs" page gives
// them: the pi Job prints π to 2000 digits and completes, so `kubectl
// wait --for=condition=complete` returns. And the other way: a Job whose
// image lacks its program fails as a real one does (StartError,
// "executable file not found in $PATH") rather than running for ever.
func TestKubectlJobTutorial(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--stage-delay", "20ms")
	k := newKubectl(t, s)

	assert.Equal(t, "job.batch/pi created\n", k.ok("apply", "-f", "testdata/job-pi.yaml"))
	k.ok("wait", "--for=condition=complete", "job/pi", "--timeout=60s")
	describe := k.ok("describe", "job", "pi")
	assert.Regexp(t, `Pods Statuses:\s+0 Active \(0 Ready\) / 1 Succeeded / 0 Failed`, describe)
	assert.Regexp(t, `Completed At:\s+\S`, describe)
	assert.Regexp(t, `Normal\s+Completed\s+\S+\s+job-controller\s+Job completed`, describe)
	pods := k.ok("get", "pods", "--selector=batch.kubernetes.io/job-name=pi", "--output=jsonpath={.items[*].metadata.name}")
	require.Regexp(t, `^pi-[a-z0-9]{5}$`, pods)
	out := k.ok("logs", pods)
	assert.True(t, strings.HasPrefix(out, "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745028410270193852110555964462294895493038196"), out)
	assert.Len(t, out, 2002, "2000 digits, the point and the newline")
	assert.Equal(t, out, k.ok("logs", "jobs/pi"))
	assert.Regexp(t, `(?m)^pi\s+Complete\s+1/1\s+\S+\s+\S+$`, k.ok("get", "job", "pi"))

	// busybox has no perl: the container never starts, and the Job
	// fails once its backoffLimit is spent.
	raw, err := os.ReadFile("testdata/job-pi.yaml")
	require.NoError(t, err)
	job := strings.NewReplacer("name: pi", "name: nopi", "perl:5.34.0", "busybox:1.36", "backoffLimit: 4", "backoffLimit: 0").Replace(string(raw))
	_, errOut, code := k.runIn(job, "apply", "-f", "-")
	require.Equal(t, 0, code, errOut)
	k.ok("wait", "--for=condition=failed", "job/nopi", "--timeout=60s")
	pod := k.ok("get", "pods", "-l", "batch.kubernetes.io/job-name=nopi", "-o", "jsonpath={.items[0].metadata.name}")
	assert.Regexp(t, `(?m)^`+pod+`\s+0/1\s+StartError\s+0\s+\S+$`, k.ok("get", "pod", pod, "--no-headers"))
	describe = k.ok("describe", "pod", pod)
	const notFound = `exec: "perl": executable file not found in $PATH: unknown`
	assert.Regexp(t, `State:\s+Terminated\n\s+Reason:\s+StartError\n\s+Message:\s+failed to create containerd task: failed to create shim task: `+
		`OCI runtime create failed: runc create failed: unable to start container process: error during container init: `+regexp.QuoteMeta(notFound)+
		`\n\s+Exit Code:\s+128\n\s+Started:\s+Thu, 01 Jan 1970 00:00:00 \+0000`, describe)
	assert.Contains(t, describe, "Error: failed to create containerd task")
	assert.Empty(t, k.ok("logs", pod), "the process never ran")
}

// A program kubesim does not know, in a Deployment's pod: the container
// waits with RunContainerError, then CrashLoopBackOff, its last state
// StartError; the image that has the program runs it.
func TestKubectlProgramTheImageLacks(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.ok("create", "deployment", "app", "--image=busybox", "--", "frobnicate", "--serve")
	out := k.eventually(func(out string) bool {
		return strings.Contains(out, "CrashLoopBackOff") || strings.Contains(out, "RunContainerError")
	}, "get", "pods", "-l", "app=app", "--no-headers")
	assert.Regexp(t, `0/1\s+(RunContainerError|CrashLoopBackOff)\s+[1-9]`, out)
	assert.Equal(t, "StartError 128", k.jsonpath("pods", `{.items[0].status.containerStatuses[0].lastState.terminated.reason} {.items[0].status.containerStatuses[0].lastState.terminated.exitCode}`, "-l", "app=app"))
	events := k.ok("get", "events", "--field-selector", "reason=Failed", "-o", "jsonpath={.items[*].message}")
	assert.Contains(t, events, `Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: `+
		`unable to start container process: error during container init: exec: "frobnicate": executable file not found in $PATH: unknown`)

	// The image that has it: perl prints and completes.
	k.ok("run", "hello", "--image=perl:5.34.0", "--restart=Never", "--", "perl", "-le", `print "hello from perl"`)
	k.ok("wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/hello", "--timeout=60s")
	assert.Equal(t, "hello from perl\n", k.ok("logs", "hello"))
}

// kubectl port-forward to a simulated nginx gets what wget gets in the
// cluster (the welcome page), through the Service as through the pod, and
// nginx's access log — the container's log — shows the requests. A port
// nothing listens on is refused with containerd's words, and kubectl gives
// up the forward.
func TestKubectlPortForwardToSimulatedServers(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.ok("create", "deployment", "nginx", "--image=nginx:1.27")
	k.ok("expose", "deployment", "nginx", "--port=80")
	k.ok("run", "shell", "--image=busybox", "--", "sleep", "3600")
	k.ok("wait", "--for=condition=Available", "deployment/nginx", "--timeout=60s")
	k.ok("wait", "--for=condition=Ready", "pod/shell", "--timeout=60s")

	inCluster, errOut, code := k.runIn("", "exec", "shell", "--", "wget", "-qO-", "nginx")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, inCluster, "<title>Welcome to nginx!</title>")

	for _, mode := range []struct{ name, env string }{
		{"websocket tunnel", "KUBECTL_PORT_FORWARD_WEBSOCKETS=true"},
		{"spdy", "KUBECTL_PORT_FORWARD_WEBSOCKETS=false"},
	} {
		t.Run("svc/nginx over "+mode.name, func(t *testing.T) {
			port, _, _ := k.portForward("svc/nginx", "80", mode.env)
			for range 2 { // two connections through one forward
				resp, err := (&http.Client{Timeout: 30 * time.Second}).Get("http://localhost:" + port + "/")
				require.NoError(t, err)
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				assert.Equal(t, inCluster, string(body), "what wget gets in the cluster")
				assert.Regexp(t, `^nginx/1\.27\.\d+$`, resp.Header.Get("Server"))
			}
			resp, err := (&http.Client{Timeout: 30 * time.Second}).Get("http://localhost:" + port + "/missing")
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		})
	}
	shellIP := k.jsonpath("pod/shell", "{.status.podIP}")
	logs := k.ok("logs", "deploy/nginx")
	assert.Contains(t, logs, "/docker-entrypoint.sh: Configuration complete; ready for start up\n")
	assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(shellIP)+` - - \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d \+0000\] "GET / HTTP/1\.1" 200 615 "-" "Wget" "-"$`, logs)
	assert.Len(t, regexp.MustCompile(`(?m)^127\.0\.0\.1 - - \[.*\] "GET / HTTP/1\.1" 200 615 "-" "Go-http-client/1\.1" "-"$`).FindAllString(logs, -1), 4, logs)
	assert.Regexp(t, `(?m)^127\.0\.0\.1 - - \[.*\] "GET /missing HTTP/1\.1" 404 153 "-" "Go-http-client/1\.1" "-"$`, logs)

	t.Run("a port nothing listens on", func(t *testing.T) {
		port, cmd, errb := k.portForward("deployment/nginx", "81")
		conn, err := net.Dial("tcp", "127.0.0.1:"+port)
		require.NoError(t, err)
		_, _ = conn.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
		data, _ := io.ReadAll(conn)
		conn.Close()
		assert.Empty(t, data, "nothing answers")
		_ = cmd.Wait() // kubectl gives up the whole forward on a remote error
		assert.Regexp(t, `an error occurred forwarding `+port+` -> 81: error forwarding port 81 to pod [0-9a-f]{64}, uid : `+
			`failed to execute portforward in network namespace \\"/var/run/netns/cni-[0-9a-f-]{36}\\": `+
			`failed to connect to localhost:81 inside namespace \\"[0-9a-f]{64}\\", IPv4: dial tcp4 127\.0\.0\.1:81: connect: connection refused `+
			`IPv6 dial tcp6 \[::1\]:81: connect: connection refused `, errb.String())
		assert.Contains(t, errb.String(), "error: lost connection to pod")
	})
}

// kubernetes.io's "Use Port Forwarding to Access Applications in a
// Cluster", its commands as written: the MongoDB Deployment and Service,
// the port the pod listens on, kubectl port-forward in each of its
// forms, and the ping mongosh sends answered { ok: 1 }. The earlier
// edition's Redis, and redis-cli's PING, answer PONG.
func TestKubectlPortForwardTutorial(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--stage-delay", "20ms")
	k := newKubectl(t, s)
	assert.Equal(t, "deployment.apps/mongo created\n", k.ok("apply", "-f", "testdata/mongo-deployment.yaml"))
	k.ok("wait", "--for=condition=Available", "deployment/mongo", "--timeout=60s")
	assert.Regexp(t, `(?m)^mongo-[a-z0-9]+-[a-z0-9]{5}\s+1/1\s+Running\s+0\s+\S+$`, k.ok("get", "pods"))
	assert.Regexp(t, `(?m)^mongo\s+1/1\s+1\s+1\s+\S+$`, k.ok("get", "deployment"))
	assert.Regexp(t, `(?m)^mongo-[a-z0-9]+\s+1\s+1\s+1\s+\S+$`, k.ok("get", "replicaset"))
	assert.Equal(t, "service/mongo created\n", k.ok("apply", "-f", "testdata/mongo-service.yaml"))
	assert.Regexp(t, `(?m)^mongo\s+ClusterIP\s+10\.\d+\.\d+\.\d+\s+<none>\s+27017/TCP\s+\S+$`, k.ok("get", "service", "mongo"))
	pod := k.ok("get", "pods", "-l", "app.kubernetes.io/name=mongo", "-o", "jsonpath={.items[0].metadata.name}")
	rs := k.ok("get", "replicaset", "-l", "app.kubernetes.io/name=mongo", "-o", "jsonpath={.items[0].metadata.name}")
	assert.Equal(t, "27017\n", k.ok("get", "pod", pod, `--template={{(index (index .spec.containers 0).ports 0).containerPort}}{{"\n"}}`))

	for _, target := range []string{pod, "pods/" + pod, "deployment/mongo", "replicaset/" + rs, "service/mongo"} {
		// The tutorial's local port when the machine has it free, else
		// the one kubectl picks (its "let kubectl choose" form).
		ports := tutorialPort(28015) + ":27017"
		port, cmd, _ := k.portForwardPorts(target, ports, "27017")
		doc := mongoPing(t, "127.0.0.1:"+port)
		assert.Equal(t, 1.0, doc, "db.runCommand( { ping: 1 } ) through %s", target)
		_ = cmd.Process.Kill() // ^C, for the next form
		_ = cmd.Wait()
	}
	assert.Contains(t, k.ok("logs", "deployment/mongo"), "I  NETWORK  [listener] waiting for connections on port 27017")

	assert.Equal(t, "deployment.apps/redis-master created\nservice/redis-master created\n", k.ok("apply", "-f", "testdata/redis-master-deployment.yaml"))
	k.ok("wait", "--for=condition=Available", "deployment/redis-master", "--timeout=60s")
	for _, target := range []string{"deployment/redis-master", "svc/redis-master"} {
		port, cmd, _ := k.portForwardPorts(target, tutorialPort(7000)+":6379", "6379")
		conn, err := net.Dial("tcp", "127.0.0.1:"+port)
		require.NoError(t, err)
		br := bufio.NewReader(conn)
		_, err = conn.Write([]byte("*1\r\n$4\r\nPING\r\n"))
		require.NoError(t, err)
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, "+PONG\r\n", line, "redis-cli -p 7000 ping through %s", target)
		conn.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	assert.Contains(t, k.ok("logs", "deployment/redis-master"), "* Ready to accept connections tcp")
}

// mongoPing sends mongosh's ping (an OP_MSG {ping: 1, $db: "admin"}) to
// addr and returns the answer's ok.
func mongoPing(t *testing.T, addr string) float64 {
	t.Helper()
	doc := func(elems ...[]byte) []byte {
		var body []byte
		for _, e := range elems {
			body = append(body, e...)
		}
		out := binary.LittleEndian.AppendUint32(nil, uint32(len(body)+5))
		return append(append(out, body...), 0)
	}
	ping := append([]byte{0x10}, "ping\x00"...)
	ping = binary.LittleEndian.AppendUint32(ping, 1)
	db := append([]byte{0x02}, "$db\x00"...)
	db = binary.LittleEndian.AppendUint32(db, 6)
	db = append(db, "admin\x00"...)
	body := append(binary.LittleEndian.AppendUint32(nil, 0), 0)
	body = append(body, doc(ping, db)...)
	msg := binary.LittleEndian.AppendUint32(nil, uint32(16+len(body)))
	msg = binary.LittleEndian.AppendUint32(msg, 1)
	msg = binary.LittleEndian.AppendUint32(msg, 0)
	msg = binary.LittleEndian.AppendUint32(msg, 2013)
	msg = append(msg, body...)

	conn, err := net.DialTimeout("tcp", addr, 30*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
	_, err = conn.Write(msg)
	require.NoError(t, err)
	head := make([]byte, 16)
	_, err = io.ReadFull(conn, head)
	require.NoError(t, err)
	require.Equal(t, uint32(2013), binary.LittleEndian.Uint32(head[12:]), "an OP_MSG answers")
	reply := make([]byte, binary.LittleEndian.Uint32(head)-16)
	_, err = io.ReadFull(conn, reply)
	require.NoError(t, err)
	// flagBits, section kind 0, then the document: {ok: 1.0}.
	d := reply[5:]
	i := strings.Index(string(d), "\x01ok\x00")
	require.GreaterOrEqual(t, i, 0, "an ok field: %q", d)
	return math.Float64frombits(binary.LittleEndian.Uint64(d[i+4:]))
}

// tutorialPort is port if nothing listens on it now (the forward before
// is gone once its kubectl is, but may not have closed yet), or "" for
// kubectl to pick one.
func tutorialPort(port int) string {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return ""
	}
	l.Close()
	return fmt.Sprint(port)
}
