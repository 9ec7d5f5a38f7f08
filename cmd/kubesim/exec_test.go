package main

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runIn runs kubectl with stdin and returns stdout, stderr and the exit
// code.
func (k *kubectl) runIn(stdin string, args ...string) (string, string, int) {
	k.t.Helper()
	cmd := k.cmd(args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(k.t, err)
	}
	return out.String(), errb.String(), code
}

// kubectl exec and attach over WebSocket v5.channel.k8s.io against the
// simulated container: its variables and mounted files, exit codes, and
// the refusals worded as a real cluster words them.
func TestKubectlExec(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir())
	k := newKubectl(t, s)
	k.ok("apply", "-f", "testdata/exec-pod.yaml")
	k.ok("wait", "--for=condition=Ready", "pod/shell", "--timeout=60s")
	node := strings.TrimSpace(k.ok("get", "pod", "shell", "-o", "jsonpath={.spec.nodeName}"))

	t.Run("env", func(t *testing.T) {
		out := k.ok("exec", "shell", "--", "env")
		for _, want := range []string{"HOSTNAME=shell\n", "GREETING=hello\n", "MODE=fast\n", "PASSWORD=s3cret\n", "MY_NODE=" + node + "\n", "HOME=/root\n",
			// The service links of the kubernetes Service.
			"KUBERNETES_SERVICE_HOST=10.96.0.1\n", "KUBERNETES_SERVICE_PORT=443\n", "KUBERNETES_PORT=tcp://10.96.0.1:443\n"} {
			assert.Contains(t, out, want)
		}
		assert.True(t, strings.HasPrefix(out, "PATH="), out)
	})
	t.Run("sh -c expands variables", func(t *testing.T) {
		out, errOut, code := k.runIn("", "exec", "-it", "shell", "--", "sh", "-c", "echo $HOSTNAME")
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, "shell\n", out)
		// Without a terminal, kubectl drops -t and says so.
		assert.Contains(t, errOut, "Unable to use a TTY - input is not a terminal or the right kind of file")
	})
	t.Run("mounted files", func(t *testing.T) {
		assert.Equal(t, "value-from-configmap", k.ok("exec", "shell", "--", "cat", "/etc/config/key"))
		assert.Equal(t, "s3cret", k.ok("exec", "shell", "-c", "app", "--", "cat", "/etc/secret/password"))
		assert.Equal(t, "key\nmode\n", k.ok("exec", "shell", "--", "ls", "/etc/config"))
		assert.Equal(t, "shell\n", k.ok("exec", "shell", "--", "hostname"))
	})
	t.Run("stdin", func(t *testing.T) {
		out, errOut, code := k.runIn("line one\nline two\n", "exec", "-i", "shell", "--", "cat")
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, "line one\nline two\n", out)
		out, _, code = k.runIn("echo from-stdin $GREETING\nexit 4\n", "exec", "-i", "shell", "--", "sh")
		assert.Equal(t, 4, code)
		assert.Equal(t, "from-stdin hello\n", out)
	})
	t.Run("exit code", func(t *testing.T) {
		_, errOut, code := k.runIn("", "exec", "shell", "--", "sh", "-c", "exit 3")
		assert.Equal(t, 3, code)
		assert.Equal(t, "command terminated with exit code 3\n", errOut)
		_, errOut, code = k.runIn("", "exec", "shell", "--", "sh", "-c", "nc example.com 80")
		assert.Equal(t, 127, code)
		assert.Equal(t, "sh: nc: not found\ncommand terminated with exit code 127\n", errOut)
		out, errOut, code := k.runIn("", "exec", "shell", "--", "curl")
		assert.Equal(t, 126, code)
		assert.Contains(t, out, `exec: "curl": executable file not found in $PATH`)
		assert.Equal(t, "command terminated with exit code 126\n", errOut)
		_, errOut, code = k.runIn("", "exec", "shell", "--", "cat", "/nope")
		assert.Equal(t, 1, code)
		assert.Equal(t, "cat: can't open '/nope': No such file or directory\ncommand terminated with exit code 1\n", errOut)
	})
	t.Run("terminal", func(t *testing.T) {
		// script(1) gives kubectl a real terminal: kubectl sets it raw, the
		// container's shell echoes what is typed, prints its prompt and
		// ends lines with CRLF, as a terminal in a container does.
		if _, err := exec.LookPath("script"); err != nil {
			t.Fatalf("script (util-linux) is required for the terminal test: %v", err)
		}
		cmd := k.cmd("exec", "-it", "shell", "--", "sh")
		line := strings.Join(cmd.Args, " ")
		script := k.cmd()
		script.Path, script.Args = "/usr/bin/script", []string{"script", "-q", "-e", "-c", line, "/dev/null"}
		script.Stdin = strings.NewReader("echo $HOSTNAME $TERM\rexit 3\r")
		var out strings.Builder
		script.Stdout, script.Stderr = &out, &out
		err := script.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, out.String())
		assert.Equal(t, 3, ee.ExitCode(), out.String())
		assert.Contains(t, out.String(), "/ # echo $HOSTNAME $TERM\r\nshell xterm\r\n/ # exit 3\r\n")
		assert.Contains(t, out.String(), "command terminated with exit code 3")
	})
	t.Run("spdy fallback", func(t *testing.T) {
		// What kubectl falls back to when the WebSocket upgrade fails,
		// forced here: the same commands over SPDY/3.1.
		spdy := "KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false"
		run := func(stdin string, args ...string) (string, string, int) {
			cmd := k.cmd(args...)
			cmd.Env = append(cmd.Env, spdy)
			cmd.Stdin = strings.NewReader(stdin)
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			return out.String(), errb.String(), code
		}
		out, errOut, code := run("", "exec", "shell", "--", "sh", "-c", "echo $HOSTNAME; cat /etc/config/mode; cat /nope")
		assert.Equal(t, 1, code)
		assert.Equal(t, "shell\nfast", out)
		assert.Equal(t, "cat: can't open '/nope': No such file or directory\ncommand terminated with exit code 1\n", errOut)
		out, errOut, code = run("piped\n", "exec", "-i", "shell", "--", "cat")
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, "piped\n", out)
	})
	t.Run("refusals", func(t *testing.T) {
		assert.Contains(t, k.fail("exec", "shell", "-c", "nope", "--", "ls"),
			"Error from server (BadRequest): container nope is not valid for pod shell")
		assert.Contains(t, k.fail("exec", "ghost", "--", "ls"), `Error from server (NotFound): pods "ghost" not found`)

		k.ok("wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/done", "--timeout=60s")
		assert.Contains(t, k.fail("exec", "done", "--", "ls"), "error: cannot exec into a container in a completed pod; current phase is Succeeded")

		// While the init container runs, the app container has not
		// started: the kubelet finds no such container, and kubectl,
		// having fallen back from the WebSocket to SPDY, says so.
		require.Eventually(t, func() bool {
			out, _ := k.run(false, "get", "pod", "initwait", "-o", "jsonpath={.status.initContainerStatuses[0].state.running.startedAt}")
			return out != ""
		}, time.Minute, 100*time.Millisecond)
		assert.Equal(t, "initwait\n", k.ok("exec", "initwait", "-c", "wait", "--", "hostname"))
		assert.Contains(t, k.fail("exec", "initwait", "-c", "app", "--", "ls"), `error: unable to upgrade connection: container not found ("app")`)
	})
	t.Run("attach", func(t *testing.T) {
		k.ok("wait", "--for=condition=Ready", "pod/ticker", "--timeout=60s")
		cmd := k.cmd("attach", "ticker")
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		// What the container prints from now on streams to kubectl.
		line, err := bufio.NewReader(stdout).ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, "tick\n", line)
	})
	t.Run("the shell tutorial", func(t *testing.T) {
		// kubernetes.io's "Get a Shell to a Running Container": an nginx
		// pod, /bin/bash, and a file written with a redirection.
		_, errOut, code := k.runIn(`apiVersion: v1
kind: Pod
metadata:
  name: shell-demo
spec:
  volumes:
  - name: shared-data
    emptyDir: {}
  containers:
  - name: nginx
    image: nginx
    volumeMounts:
    - name: shared-data
      mountPath: /usr/share/nginx/html
`, "apply", "-f", "-")
		require.Equal(t, 0, code, errOut)
		k.ok("wait", "--for=condition=Ready", "pod/shell-demo", "--timeout=60s")
		k.ok("exec", "shell-demo", "--", "sh", "-c", "echo 'Hello shell demo' > /usr/share/nginx/html/index.html")
		assert.Equal(t, "Hello shell demo\n", k.ok("exec", "shell-demo", "--", "cat", "/usr/share/nginx/html/index.html"))
		out, errOut, code := k.runIn("echo $HOSTNAME >> /usr/share/nginx/html/index.html\ncat /usr/share/nginx/html/index.html\nexit 5\n",
			"exec", "-i", "shell-demo", "--", "/bin/bash")
		assert.Equal(t, 5, code, errOut)
		assert.Equal(t, "Hello shell demo\nshell-demo\n", out)
		// The tutorial's last check: nginx serves the page written.
		assert.Equal(t, "Hello shell demo\nshell-demo\n", k.ok("exec", "shell-demo", "--", "curl", "-s", "http://localhost/"))
		// busybox has no bash, as on a real node.
		out, _, code = k.runIn("", "exec", "shell", "--", "bash")
		assert.Equal(t, 126, code)
		assert.Contains(t, out, `exec: "bash": executable file not found in $PATH`)
	})
}

// portForward starts kubectl port-forward to a random local port and
// returns that port and kubectl's stderr so far (read it after the
// process ends).
func (k *kubectl) portForward(target, remote string, env ...string) (string, *exec.Cmd, *strings.Builder) {
	k.t.Helper()
	return k.portForwardPorts(target, ":"+remote, remote, env...)
}

// portForwardPorts is portForward with kubectl's port argument as given
// ("28015:27017", ":80").
func (k *kubectl) portForwardPorts(target, ports, remote string, env ...string) (string, *exec.Cmd, *strings.Builder) {
	k.t.Helper()
	cmd := k.cmd("port-forward", target, ports)
	cmd.Env = append(cmd.Env, env...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(k.t, err)
	errb := &strings.Builder{}
	cmd.Stderr = errb
	require.NoError(k.t, cmd.Start())
	k.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	re := regexp.MustCompile(`Forwarding from 127\.0\.0\.1:(\d+) -> ` + remote)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			go func() {
				for sc.Scan() {
				}
			}()
			return m[1], cmd, errb
		}
	}
	_ = cmd.Wait()
	k.t.Fatalf("kubectl port-forward printed no forwarding line; stderr: %s", errb.String())
	return "", nil, nil
}

// kubectl port-forward reaches an image that really listens (the
// extension API server, through the pod network) and a simulated
// container's server, and refuses a port nothing listens on.
func TestKubectlPortForward(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir())
	k := newKubectl(t, s)
	k.ok("apply", "-f", "testdata/portforward-pods.yaml")
	k.ok("wait", "--for=condition=Ready", "pod/ext", "pod/plain", "--timeout=60s")

	// kubectl v1.32 tunnels SPDY in a WebSocket; without the feature it
	// upgrades to SPDY directly, as it falls back to when the WebSocket
	// upgrade fails.
	for _, mode := range []struct{ name, env string }{
		{"websocket tunnel", "KUBECTL_PORT_FORWARD_WEBSOCKETS=true"},
		{"spdy", "KUBECTL_PORT_FORWARD_WEBSOCKETS=false"},
	} {
		t.Run("real listener over "+mode.name, func(t *testing.T) {
			port, _, _ := k.portForward("pod/ext", "443", mode.env)
			client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
			for i := 0; i < 2; i++ { // two connections through one port-forward
				resp, err := client.Get("https://127.0.0.1:" + port + "/healthz")
				require.NoError(t, err)
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				// The extension API server itself answers: it wants the
				// front proxy's client certificate, which this client lacks.
				assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, string(body))
				assert.Contains(t, string(body), `"reason":"Unauthorized"`)
				client.CloseIdleConnections()
			}
		})
	}
	t.Run("simulated container", func(t *testing.T) {
		// nginx listens on 80: it answers as it answers wget in the
		// cluster (HTTP/1.0: then it closes the connection).
		port, _, _ := k.portForward("pod/plain", "80")
		conn, err := net.Dial("tcp", "127.0.0.1:"+port)
		require.NoError(t, err)
		_, _ = conn.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
		data, _ := io.ReadAll(conn)
		conn.Close()
		assert.True(t, strings.HasPrefix(string(data), "HTTP/1.1 200 OK\r\nServer: nginx/1.27."), string(data))
		assert.Contains(t, string(data), "<title>Welcome to nginx!</title>")
		// Nothing listens on 81: refused, in containerd's words, and
		// kubectl v1.32 gives up the whole forward on a remote error.
		port, cmd, errb := k.portForward("pod/plain", "81")
		conn, err = net.Dial("tcp", "127.0.0.1:"+port)
		require.NoError(t, err)
		_, _ = conn.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
		data, _ = io.ReadAll(conn)
		conn.Close()
		assert.Empty(t, data, "nothing answers")
		_ = cmd.Wait()
		assert.Regexp(t, `an error occurred forwarding `+port+` -> 81: error forwarding port 81 to pod [0-9a-f]{64}, uid : `+
			`failed to execute portforward in network namespace \\"/var/run/netns/cni-[0-9a-f-]{36}\\": failed to connect to localhost:81 inside namespace `+
			`\\"[0-9a-f]{64}\\", IPv4: dial tcp4 127\.0\.0\.1:81: connect: connection refused IPv6 dial tcp6 \[::1\]:81: connect: connection refused `, errb.String())
		assert.Contains(t, errb.String(), "error: lost connection to pod")
	})
	t.Run("pod not running", func(t *testing.T) {
		assert.Contains(t, k.fail("port-forward", "pod/pending", ":80"),
			"error: unable to forward port because pod is not running. Current status=Pending")
	})
}

// The RBAC of exec as kubectl v1.32 meets it: its WebSocket is a GET
// (authorized as get on pods/exec); refused, kubectl falls back to SPDY,
// a POST (create). So the usual role — create on pods/exec — lets a user
// in through the fallback, and without it the refusal names create.
func TestKubectlExecRBAC(t *testing.T) {
	t.Parallel()
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	require.NoError(t, os.WriteFile(tokens, []byte("alice-token,alice,alice-uid\nbob-token,bob,bob-uid\n"), 0o600))
	s := startServer(t, t.TempDir(), "--token-file", tokens)
	admin := newKubectl(t, s)
	admin.ok("run", "box", "--image=busybox:1.36", "--", "sh", "-c", "sleep 3600")
	admin.ok("wait", "--for=condition=Ready", "pod/box", "--timeout=60s")
	admin.ok("create", "role", "pod-reader", "--verb=get", "--resource=pods", "-n", "default")
	admin.ok("create", "rolebinding", "readers", "--role=pod-reader", "--user=alice", "--user=bob", "-n", "default")
	admin.ok("create", "role", "exec", "--verb=create", "--resource=pods/exec", "-n", "default")
	admin.ok("create", "rolebinding", "alice-exec", "--role=exec", "--user=alice", "-n", "default")

	alice, bob := asUser(t, s, "alice-token"), asUser(t, s, "bob-token")
	assert.Equal(t, "box\n", alice.ok("exec", "box", "--", "hostname"))
	assert.Contains(t, bob.fail("exec", "box", "--", "hostname"),
		`Error from server (Forbidden): pods "box" is forbidden: User "bob" cannot create resource "pods/exec" in API group "" in the namespace "default"`)
}
